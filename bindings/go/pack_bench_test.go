package abloom

import "testing"

func BenchmarkPack(b *testing.B) {
	ks := keys(0, 1024)
	b.ResetTimer()
	for i := 0; i < b.N; i += 1024 {
		p := pack(ks)
		putPacked(p)
	}
}
