package node

import (
	"os"
	"testing"
)

// BenchmarkWriteH100 measures rendering and writing the default h100-ndr
// root (about 5,000 files and symlinks) into a fresh directory.
func BenchmarkWriteH100(b *testing.B) {
	n := mustBuild(b, Options{})
	dir := b.TempDir()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		os.RemoveAll(dir)
		b.StartTimer()
		if err := n.Write(dir); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdateLive measures one live step and the incremental Update
// of an h100-ndr root, the agent test's hot loop.
func BenchmarkUpdateLive(b *testing.B) {
	n := mustBuild(b, Options{})
	dir := b.TempDir()
	if err := n.Write(dir); err != nil {
		b.Fatal(err)
	}
	sc, _ := ScenarioByName("mixed")
	l := NewLive(n, sc)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		l.Step(1e9)
		if _, err := n.Update(dir); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEntries measures rendering the h100-ndr node in memory.
func BenchmarkEntries(b *testing.B) {
	n := mustBuild(b, Options{})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		n.Entries()
	}
}
