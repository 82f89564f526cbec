module github.com/recapgo/recap/examples/breaker

go 1.21

require github.com/recapgo/recap v0.1.0
