module github.com/recapgo/recap/examples/startbench

go 1.26.0

require (
	github.com/recapgo/recap v0.1.0
	github.com/tiktoken-go/tokenizer v0.10.0
)

require github.com/dlclark/regexp2/v2 v2.5.1 // indirect
