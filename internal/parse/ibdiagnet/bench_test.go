package ibdiagnet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "ibdiagnet-ydanzig-logparsertask.txt"))
	if err != nil {
		b.Fatal(err)
	}
	text := string(data)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := Parse(strings.NewReader(text), "b"); err != nil {
			b.Fatal(err)
		}
	}
}
