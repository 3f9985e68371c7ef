# sanitize-wrap.jq - each sample's code (field $f: completion or solution) dressed as a chat model answers, six ways in turn
#
#   jq -n -c --arg f completion -f tests/cli/sanitize-wrap.jq SAMPLES.jsonl
#
# Sample i: 0 a python fence between chatter with apostrophes, 1 a bare fence,
# 2 a python fence then an output block in another language, 3 no fence:
# chatter before and after, 4 an `if __name__ == "__main__":` block after,
# 5 top-level prints and an assert after. sanitize.bats scores them with
# --sanitize against the labels of the clean samples.
def fence(tag): "```" + tag + "\n" + . + "\n```";
[inputs] | to_entries[] | .key as $i | .value | .[$f] |= (
	if $i % 6 == 0 then "Here's the code:\n\n" + fence("python") + "\n\nIt's O(n)."
	elif $i % 6 == 1 then fence("")
	elif $i % 6 == 2 then "Sure.\n" + fence("python") + "\nOutput:\n" + ("True\nFalse\n[1, 2]" | fence("text")) + "\nDone."
	elif $i % 6 == 3 then "Here is the completion:\n" + . + "\n\nThis should work for every input."
	elif $i % 6 == 4 then . + "\n\n\nif __name__ == \"__main__\":\n    import doctest\n    doctest.testmod()\n"
	else . + "\n\nprint(\"done\")\nassert True\n" end)
