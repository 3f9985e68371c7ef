"""evalplus_rules.py - EvalPlus's rules for HumanEval+ and MBPP+, applied by the driver: inputs as EvalPlus reads them, the oracle's record, the comparison.

Trusted: only the driver imports it (before any candidate code runs), and it
works on plain data (plain.py). Each rule is written from reading EvalPlus's
evaluator (github.com/evalplus/evalplus at 26d6d00: evalplus/eval/__init__.py
unsafe_execute, eval/_special_oracle.py, data/mbpp.py
mbpp_deserialize_inputs, gen/util trusted_exec), not copied from it, and is
listed with its reason in docs/fidelity.md ("HumanEval+ and MBPP+").
"""
import json
import math

# --- inputs ---------------------------------------------------------------

# MBPP+ stores its inputs as JSON, so the tuples, sets and complex numbers its
# functions take arrive as lists or numbers; EvalPlus turns them back, task by
# task (mbpp_deserialize_inputs). The same, keyed by the MBPP task number.


def _tuples(x):
    """Every list in X, at any depth, as a tuple."""
    return tuple(_tuples(v) for v in x) if isinstance(x, list) else x


def _each_tuple(inp):
    return [tuple(a) for a in inp]


def _each_list_of_tuples(inp):
    return [[tuple(v) for v in a] for a in inp]


def _first_list_of_tuples(inp):
    return [[tuple(v) for v in inp[0]], inp[1]]


def _second_tuple(inp):
    return [inp[0], tuple(inp[1])]


def _sets_or_empty_dicts(inp):
    # an empty list (or anything not a list) becomes {}: an empty *dict*, as EvalPlus has it
    return [[set(v) if isinstance(v, list) and len(v) else {} for v in inp[0]]]


def _float_complex(inp):
    return (float(inp[0]), complex(inp[1]))


def _first_tuple(inp):
    return [tuple(inp[0]), inp[1]]


def _each_tuple_of_tuples(inp):
    return [tuple(tuple(v) for v in a) for a in inp]


def _one_tuple_of_tuples(inp):
    return [tuple(tuple(v) if isinstance(v, list) else v for v in inp[0])]


def _first_tuple_of_three(inp):
    return [tuple(inp[0]), inp[1], inp[2]]


def _dict_of_tuples(inp):
    return [{k: tuple(v) for k, v in inp[0].items()}] + inp[1:]


def _complex(inp):
    return [complex(inp[0])]


MBPP_INPUTS = {}
for _fn, _tasks in ((_each_tuple, (2, 116, 132, 143, 222, 261, 273, 394, 399, 421, 424, 429, 470, 560, 579, 596,
                                   616, 630, 726, 740, 744, 809)),
                    (_each_list_of_tuples, (63, 64, 70, 94, 120, 237, 272, 299, 400, 409, 417, 438, 473, 614, 780)),
                    (_first_list_of_tuples, (75, 413, 444, 753)),
                    (_second_tuple, (106, 750)),
                    (_sets_or_empty_dicts, (115,)),
                    (_float_complex, (124,)),
                    (_first_tuple, (250, 405, 446, 617, 720, 763, 808)),
                    (_each_tuple_of_tuples, (259, 401, 445)),
                    (_one_tuple_of_tuples, (278,)),
                    (_first_tuple_of_three, (307,)),
                    (_dict_of_tuples, (722,)),
                    (_complex, (252,)),
                    (_tuples, (580, 615, 791))):
    for _t in _tasks:
        MBPP_INPUTS[_t] = _fn


def read_input(spec, text):
    """One input's arguments, from its JSON text as the task file has it:
    Python's json, as EvalPlus reads it (integers of any size, NaN, Infinity,
    floats exactly as written), then MBPP+'s conversions."""
    args = json.loads(text)
    if spec.get("dataset") == "mbpp":
        number = str(spec.get("task", "")).rpartition("/")[2]
        convert = MBPP_INPUTS.get(int(number)) if number.isdigit() else None
        if convert:
            args = convert(args)
    return args


# --- the oracle's record --------------------------------------------------

# MBPP+ tasks whose answers are not data (a regular expression's match): EvalPlus
# records only whether the reference returned something (not None).
MBPP_NOT_NONE = frozenset(("check_str", "text_match_three", "text_starta_endb"))

# MBPP+ tasks whose answer is compared as a set of its elements.
MBPP_SET_EQ = frozenset(("similar_elements", "find_char_long", "common_in_nested_lists", "extract_singly",
                         "larg_nnum", "intersection_array", "find_dissimilar", "Diff"))


def oracle_value(spec, entry_point, got):
    """What the oracle records of the reference's answer GOT."""
    if spec.get("dataset") == "mbpp" and entry_point in MBPP_NOT_NONE:
        return got is not None
    return got


# --- the special oracles: answers EvalPlus checks by a property ------------

def poly(xs, x):
    """HumanEval/32's polynomial with coefficients XS at X, term by term as
    its prompt defines it (and EvalPlus evaluates it)."""
    return sum([c * math.pow(x, i) for i, c in enumerate(xs)])


def pyramid_surface(base_edge, height):
    """MBPP 581: the surface of a square pyramid whose height is the apex's
    distance from the base, rounded."""
    slant = math.sqrt((base_edge / 2) ** 2 + height ** 2)
    return round(base_edge ** 2 + 4 * (base_edge * slant) / 2)


def digit_distance(a, b):
    """MBPP 558: the sum of the digits' differences, the shorter number padded with zeros."""
    sa, sb = str(a), str(b)
    width = max(len(sa), len(sb))
    return sum(abs(int(x) - int(y)) for x, y in zip(sa.zfill(width), sb.zfill(width)))


# --- the comparison -------------------------------------------------------

RTOL = 1e-07        # numpy.testing.assert_allclose's default, which EvalPlus keeps
FLOAT_ATOL = 1e-06  # the tolerance EvalPlus takes for float answers of a task whose atol is 0


def is_floats(x):
    """A float, or a non-empty list or tuple of floats only."""
    if type(x) is float:
        return True
    return type(x) in (list, tuple) and len(x) > 0 and all(type(v) is float for v in x)


class Judge:
    """The comparison of one input list (base or plus) of one task, input by
    input in order: the tolerance is part of its state, as in EvalPlus's loop."""

    def __init__(self, spec, entry_point):
        self.dataset = spec.get("dataset")
        self.fn = entry_point
        self.atol = spec.get("atol") or 0

    def expect(self, exp):
        """Input by input, once a task of atol 0 expects floats, later
        comparisons of the same list get 1e-6 (EvalPlus sets its loop's atol,
        which then stays). check() does it where EvalPlus does (after the
        special oracles); the driver calls it for an input the candidate
        raised on or timed out on, so that the tolerance never depends on
        the candidate. find_zero's check comes first and never gets here."""
        if self.dataset == "humaneval" and self.fn == "find_zero":
            return
        if self.atol == 0 and is_floats(exp):
            self.atol = FLOAT_ATOL

    def check(self, inp, out, exp):
        """None when OUT is right for INP (EXP: the reference's), else why not."""
        try:
            return self._check(inp, out, exp)
        except Exception as e:  # a comparison EvalPlus would also see raise: a failure
            return "%s: %s" % (type(e).__name__, str(e)[:200])

    def _check(self, inp, out, exp):
        exact = out == exp
        rule = "not equal"
        if self.dataset == "mbpp":
            if self.fn == "are_equivalent":    # MBPP 164: any answer
                exact = True
            elif self.fn == "sum_div":         # MBPP 295: 0 is also accepted
                exact = exact or out == 0
            elif self.fn == "surface_Area":    # MBPP 581: the other reading of "height"
                exact = exact or abs(out - pyramid_surface(*inp)) <= self.atol
            elif self.fn == "digit_distance_nums":  # MBPP 558: zero-padded digits
                exact = exact or out == digit_distance(*inp)
            elif self.fn in MBPP_SET_EQ:
                exact = set(out) == set(exp)
                rule = "not equal as sets"
            elif self.fn in MBPP_NOT_NONE:
                exact = out == exp if type(out) is bool else exp == (out is not None)
                rule = "not equal (a bool, or anything but None for True)"
        if self.dataset == "humaneval" and self.fn == "find_zero":
            # HumanEval/32: any zero of the polynomial, within atol
            value = poly(*inp, out)
            return None if abs(value) <= self.atol else "poly(xs, %r) = %r, not within %g of 0" % (
                out, value, self.atol)
        self.expect(exp)
        if exact:
            return None
        if self.atol == 0:
            return rule
        if type(out) is not type(exp):
            return "not equal, and of another type (%s, not %s)" % (type(out).__name__, type(exp).__name__)
        if type(exp) in (list, tuple) and len(out) != len(exp):
            return "not equal, and of another length (%d, not %d)" % (len(out), len(exp))
        import numpy  # the image's (python3-numpy): its allclose is EvalPlus's
        if numpy.allclose(out, exp, rtol=RTOL, atol=self.atol):
            return None
        return "not within atol %g, rtol %g" % (self.atol, RTOL)
