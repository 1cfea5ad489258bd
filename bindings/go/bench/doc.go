// Package bench holds the Go binding's benchmarks against native Go Bloom filters
// (bench_test.go; see README.md). It is a separate module so that the binding itself has no
// dependencies.
package bench
