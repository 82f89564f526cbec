module github.com/recapgo/recap/examples/recap

go 1.21

require (
	github.com/google/go-cmp v0.7.0
	github.com/recapgo/recap v0.1.0
)
