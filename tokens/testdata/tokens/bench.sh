#!/bin/sh
# Side-by-side: recap's o200k counter and gpt-tokenizer's on the same corpus
# (the texts of fixture.jsonl), on this machine, in one run. Needs npm once.
#
#   sh tokens/testdata/tokens/bench.sh
set -eu
cd "$(dirname "$0")"
[ -d node_modules/gpt-tokenizer ] || npm install --no-save --silent gpt-tokenizer@4.0.0 >/dev/null
js=$(node bench.mjs | sed -n 's/.*"mbps":\([0-9.]*\).*/\1/p')
out=$(cd ../.. && go test -run '^$' -bench '^BenchmarkCountTokens(ColdCache)?$' -count 5 .)
median() { grep "$1" | awk '{print $5}' | sort -n | sed -n 3p; }
warm=$(echo "$out" | median 'BenchmarkCountTokens/o200k_base')
cold=$(echo "$out" | median 'BenchmarkCountTokensColdCache')
echo "gpt-tokenizer o200k, warm cache (median of 5): $js MB/s"
echo "recap o200k, warm cache (median of 5):         $warm MB/s"
echo "recap o200k, cold cache (median of 5):         $cold MB/s"
awk -v g="$js" -v w="$warm" -v c="$cold" 'BEGIN { printf "ratio recap/gpt-tokenizer: %.2fx warm, %.2fx cold\n", w / g, c / g }'
