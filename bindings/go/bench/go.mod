module github.com/abloom/abloom/bindings/go/bench

go 1.24

require (
	github.com/abloom/abloom/bindings/go v0.0.0
	github.com/bits-and-blooms/bloom/v3 v3.7.1
	github.com/zeebo/xxh3 v1.1.0
)

require (
	github.com/bits-and-blooms/bitset v1.24.2 // indirect
	github.com/klauspost/cpuid/v2 v2.2.10 // indirect
	golang.org/x/sys v0.30.0 // indirect
)

replace github.com/abloom/abloom/bindings/go => ../
