# sanitize-wrap.jq - each sample's code (field $f: completion or solution) dressed as a chat model answers, six ways in turn
#
#   jq -n -c --arg f completion [--argjson ways 3] -f tests/cli/sanitize-wrap.jq SAMPLES.jsonl
#
# Sample i, way i mod WAYS (default 6): 0 a fence tagged with the sample's
# language between chatter with apostrophes, 1 a bare fence, 2 a tagged
# fence then an output block in another language, 3 no fence: chatter
# before and after, 4 an `if __name__ == "__main__":` block after, 5
# top-level prints and an assert after (3 to 5 are Python's: --argjson
# ways 3 for C). The tag is "python", or the sample's field `lang` when it
# has one (removed). sanitize.bats scores them with --sanitize against
# the verdicts of the clean samples.
def fence(tag): "```" + tag + "\n" + . + "\n```";
($ARGS.named.ways // 6) as $ways |
[inputs] | to_entries[] | .key as $i | .value | (.lang // "python") as $lang | del(.lang) | .[$f] |= (
	if $i % $ways == 0 then "Here's the code:\n\n" + fence($lang) + "\n\nIt's O(n)."
	elif $i % $ways == 1 then fence("")
	elif $i % $ways == 2 then "Sure.\n" + fence($lang) + "\nOutput:\n" + ("True\nFalse\n[1, 2]" | fence("text")) + "\nDone."
	elif $i % $ways == 3 then "Here is the completion:\n" + . + "\n\nThis should work for every input."
	elif $i % $ways == 4 then . + "\n\n\nif __name__ == \"__main__\":\n    import doctest\n    doctest.testmod()\n"
	else . + "\n\nprint(\"done\")\nassert True\n" end)
