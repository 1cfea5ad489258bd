module github.com/abloom/abloom/bindings/go

go 1.24
