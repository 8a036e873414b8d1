#!/usr/bin/env bash
# The repository stands on its own: no comment, help text, rule text or doc
# may point at notes outside it. State the fact and its public source
# (a kernel file, an IBTA section, a man page) instead.
set -euo pipefail
pattern='\bSPEC(\.md)?\b|SEED-DIGEST|\bDOMAIN(\.md)? ?§|DOMAIN\.md|STYLE ?§|[Tt]he seed('"'"'s|:| document)|\(the seed\b|/work/shared'
if git grep -nIE "$pattern" -- . ':!scripts/check-text.sh'; then
	echo "check-text: the lines above cite notes outside the repository" >&2
	exit 1
fi
