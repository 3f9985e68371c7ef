#!/bin/sh
# man.sh SANDEVAL - write sandeval(1) on stdout, generated from the program's own --help texts
#
# The page is the command table and each command's --help, so it says what
# the binary does and cannot drift from it; docs/ has the long form.
set -eu
S=${1:?usage: sh tools/man.sh SANDEVAL}
version=$("$S" --version | cut -d' ' -f2)

# roff-safe text: backslashes doubled, a leading dot or quote escaped
esc() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }

cat <<HEAD
.TH SANDEVAL 1 "" "sandeval $version" "User Commands"
.SH NAME
sandeval \\- score code written by language models by running it, each sample in a fresh sandbox
.SH SYNOPSIS
.B sandeval
.I COMMAND
.RI [ OPTIONS ]
.SH DESCRIPTION
sandeval scores code written by language models and coding agents by running
it, never by comparing text. Every candidate runs in a fresh, kernel-isolated,
resource-bounded sandbox that is destroyed afterwards; sandeval reports
per-test verdicts, weighted scores and pass@k, lint results and a composite
score, records every evaluation, gates CI on regressions and gives structured
feedback to agent loops.
.SH COMMANDS
.nf
HEAD
"$S" --help | sed -n '/^commands:/,/^$/p' | sed '1d;$d' | esc
echo ".fi"
for cmd in $("$S" --help | sed -n '/^commands:/,/^$/p' | sed '1d;$d' | awk '{print $1}'); do
	echo ".SS sandeval $cmd"
	echo ".nf"
	"$S" "$cmd" --help | esc
	echo ".fi"
done
cat <<TAIL
.SH ENVIRONMENT
.TP
.B SANDEVAL_RUNNERS
The directory of the in-sandbox harness (driver, runners, lint configuration).
Default: \\fIrunners\\fR beside the executable, else \\fI../share/sandeval/runners\\fR
relative to it (where \\fBmake install\\fR puts them), else
\\fI/usr/share/sandeval/runners\\fR.
.TP
.B SANDEVAL_LINT_PATH
The PATH the linters are looked up in, inside the lint sandbox
(default /usr/local/bin:/usr/bin:/bin).
.TP
.B SANDEVAL_IMAGES
Where images are stored (default /var/lib/sandeval/images for root, else
\$XDG_DATA_HOME/sandeval/images).
.SH EXIT STATUS
0 when the command completed (a candidate that fails is a result, not an
error); 1 for \\fBexec\\fR when the program's status is not ok, and for
\\fBgate\\fR on a regression; 2 for usage errors, bad input, a gate that
cannot judge, and when sandeval itself failed.
.SH SEE ALSO
The documentation in the source tree's docs/ directory: run.md, exec.md,
lint.md, ci.md, show.md, report.md, sandbox.md, verdicts.md, scoring.md,
tasks.md, internals.md.
TAIL
