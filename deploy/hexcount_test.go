package deploy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/positgan/positgan/quant"
)

// A memory file's header counts its codes in good English: "1 code",
// "2 codes" (issue 29 item 12).
func TestHexHeaderCount(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		codes []uint32
		want  string
	}{
		{[]uint32{3}, "// G/fc1.b: 1 code of posit(8,1) (8 bits), shape [1], row-major\n03\n"},
		{[]uint32{3, 4}, "// G/fc1.b: 2 codes of posit(8,1) (8 bits), shape [2], row-major\n03\n04\n"},
	} {
		path := filepath.Join(dir, "b.hex")
		if err := writeHexFile(path, "G/fc1.b", quant.MustParse("posit(8,1)"), []int{len(tc.codes)}, tc.codes); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.EqualFold(string(b), tc.want) {
			t.Errorf("memory file:\n%s\nwant\n%s", b, tc.want)
		}
	}
}
