"""evalplus-rules-check.py - each of EvalPlus's comparison rules (runners/evalplus_rules.py) on hand-made answers.

usage: python3 evalplus-rules-check.py RUNNERS_DIR; prints "ok N" or fails with the first case that does not hold.
The rules are those docs/fidelity.md lists ("HumanEval+ and MBPP+"), numbered as there.
"""
import math
import sys

sys.path.insert(0, sys.argv[1])
import evalplus_rules as ep  # noqa: E402

n = 0


def check(cond, what):
    global n
    if not cond:
        sys.exit("evalplus-rules-check: does not hold: " + what)
    n += 1


def judge(dataset, fn, atol, seq):
    """Run SEQ, a list of (inp, out, exp), through one Judge: the verdicts (True: passed)."""
    j = ep.Judge({"dataset": dataset, "atol": atol}, fn)
    return [j.check(inp, out, exp) is None for inp, out, exp in seq]


H, M = "humaneval", "mbpp"

# 1. inputs: Python's json, big integers and infinities as written, then MBPP+'s conversions
check(ep.read_input({"dataset": H}, "[99999999999999999999999, -Infinity, NaN, 0.1]")[:2] ==
      [99999999999999999999999, -math.inf], "1: big integers and -Infinity read as Python reads them")
check(math.isnan(ep.read_input({"dataset": H}, "[NaN]")[0]), "1: NaN")
check(ep.read_input({"dataset": H}, "[0.30000000000000004]")[0] == 0.1 + 0.2, "1: a float to the last bit")
check(ep.read_input({"dataset": H, "task": "HumanEval/2"}, "[[1, 2]]") == [[1, 2]], "1: HumanEval+ inputs are not converted")
check(ep.read_input({"dataset": M, "task": "Mbpp/2"}, "[[1, 2], [3]]") == [(1, 2), (3,)], "1: Mbpp/2 tuples")
check(ep.read_input({"dataset": M, "task": "Mbpp/63"}, "[[[1, 2], [3, 4]]]") == [[(1, 2), (3, 4)]], "1: Mbpp/63")
check(ep.read_input({"dataset": M, "task": "Mbpp/75"}, "[[[1, 2]], 3, 99]") == [[(1, 2)], 3], "1: Mbpp/75 keeps two")
check(ep.read_input({"dataset": M, "task": "Mbpp/106"}, "[[1], [2, 3]]") == [[1], (2, 3)], "1: Mbpp/106")
got = ep.read_input({"dataset": M, "task": "Mbpp/115"}, "[[[1, 2], [], 3]]")
check(got == [[{1, 2}, {}, {}]] and type(got[0][1]) is dict, "1: Mbpp/115 sets, {} an empty dict")
check(ep.read_input({"dataset": M, "task": "Mbpp/124"}, "[3, \"1+2j\"]") == (3.0, 1 + 2j), "1: Mbpp/124 complex")
check(ep.read_input({"dataset": M, "task": "Mbpp/252"}, "[\"-1j\"]") == [-1j], "1: Mbpp/252 complex")
check(ep.read_input({"dataset": M, "task": "Mbpp/250"}, "[[1, 2], 2]") == [(1, 2), 2], "1: Mbpp/250")
check(ep.read_input({"dataset": M, "task": "Mbpp/259"}, "[[[1, 2]], [[3]]]") == [((1, 2),), ((3,),)], "1: Mbpp/259")
check(ep.read_input({"dataset": M, "task": "Mbpp/278"}, "[[1, [2, 3], 4]]") == [(1, (2, 3), 4)], "1: Mbpp/278")
check(ep.read_input({"dataset": M, "task": "Mbpp/307"}, "[[1], 2, 3, 4]") == [(1,), 2, 3], "1: Mbpp/307 keeps three")
check(ep.read_input({"dataset": M, "task": "Mbpp/722"}, "[{\"a\": [1, 2]}, 5]") == [{"a": (1, 2)}, 5], "1: Mbpp/722")
check(ep.read_input({"dataset": M, "task": "Mbpp/580"}, "[[1, [2, [3]]]]") == ((1, (2, (3,))),), "1: Mbpp/580")
check(ep.read_input({"dataset": M, "task": "Mbpp/3"}, "[[1, 2]]") == [[1, 2]], "1: other MBPP+ tasks as read")

# 2. the oracle's record: only "not None" for the three match tasks
check(ep.oracle_value({"dataset": M}, "check_str", None) is False, "2: check_str None")
check(ep.oracle_value({"dataset": M}, "text_match_three", object()) is True, "2: a match object")
check(ep.oracle_value({"dataset": H}, "check_str", None) is None, "2: only MBPP+")

# 3. exact match
check(judge(H, "f", 0, [([1], [1, 2], [1, 2]), ([1], (1, 2), [1, 2]), ([1], 1, True)]) == [True, False, True],
      "3: == on plain data (a tuple is not a list; True == 1)")

# 4. MBPP+'s special oracles
check(judge(M, "are_equivalent", 0, [([1, 2], "anything", True)]) == [True], "4: 164 takes any answer")
check(judge(M, "sum_div", 0, [([4], 0, 3), ([4], 1, 3)]) == [True, False], "4: 295 takes 0")
other = ep.pyramid_surface(3, 4)
check(judge(M, "surface_Area", 0, [([3, 4], other, 33), ([3, 4], other + 1, 33)]) == [True, False],
      "4: 581 takes the other reading of height")
check(ep.digit_distance(123, 45) == 1 + 2 + 2, "4: 558's zero-padded distance (123 vs 045)")
check(judge(M, "digit_distance_nums", 0, [([123, 45], 5, 9)]) == [True], "4: 558 takes the padded distance")
check(judge(M, "similar_elements", 0, [([(1,), (1,)], [2, 1], (1, 2)), ([(1,), (1,)], [1], (1, 2)),
                                       ([(1,), (1,)], [[1]], [[1]])]) == [True, False, False],
      "4: set tasks compare as sets, an unhashable answer fails even when equal")
check(judge(M, "check_str", 0, [(["a"], "yes", True), (["b"], "", False), (["b"], None, False), (["a"], True, True),
                                (["a"], 1, True)]) == [True, False, True, True, True],
      "4: match tasks: a bool compared, anything else by not None")

# 5. find_zero: any zero within atol
check(judge(H, "find_zero", 1e-4, [([[-6, 11, -6, 1]], 3.0, 1.0), ([[-6, 11, -6, 1]], 1.5, 1.0),
                                   ([[1, 2]], "x", -0.5)]) == [True, False, False], "5: find_zero")
check(judge(M, "find_zero", 1e-4, [([[-6, 11, -6, 1]], 3.0, 1.0)]) == [False], "5: only HumanEval+'s")

# 6. floats: 1e-6 once a float is expected, for the rest of the list
check(judge(H, "f", 0, [([1], 0.300002, 0.3)]) == [False], "6: atol 0 and a float expected: 1e-6... ")
check(judge(H, "f", 0, [([1], 0.3000005, 0.3)]) == [True], "6: ...within it")
check(judge(H, "f", 0, [([1], [1, 2.0000000001], [1, 2])]) == [False], "6: a list of ints is no float answer")
check(judge(H, "f", 0, [([1], 0.5, 0.5), ([1], [1, 2.0000000001], [1, 2])]) == [True, True],
      "6: once a float was expected, later answers get the tolerance too")
j = ep.Judge({"dataset": H, "atol": 0}, "f")
j.expect(0.5)  # the candidate failed on a float input: the tolerance as if it had answered
check(j.check([1], [1, 2.0000000001], [1, 2]) is None, "6: the tolerance never depends on the candidate")
j = ep.Judge({"dataset": H, "atol": 0}, "find_zero")
j.expect(0.5)
check(j.atol == 0, "6: find_zero never reaches the float rule")

# 7. tolerance: same type, same length, numpy.allclose(rtol=1e-7, atol)
check(judge(H, "f", 1e-6, [([1], 1, 1.0000000001)]) == [False], "7: an int for a float is another type")
check(judge(H, "f", 1e-6, [([1], [1.0], [1.0, 2.0])]) == [False], "7: another length")
check(judge(H, "f", 1e-6, [([1], (1.0, 2.0000001), (1.0, 2.0))]) == [True], "7: rtol 1e-7 of 2.0 plus atol")
check(judge(H, "f", 1e-6, [([1], 1e9 + 50, 1e9)]) == [True], "7: rtol scales (1e9 * 1e-7 = 100)")
check(judge(H, "f", 1e-6, [([1], 1e9 + 150, 1e9)]) == [False], "7: beyond rtol")
check(judge(H, "f", 1e-4, [([1], math.inf, math.inf), ([1], math.nan, math.nan)]) == [True, False],
      "7: inf equals inf, NaN nothing")

# 8. a comparison that raises is a failure
check(judge(H, "f", 1e-6, [([1], ["a"], ["b"])]) == [False], "8: allclose of strings raises: a failure")

print("ok", n)
