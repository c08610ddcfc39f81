package ckpt

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"
)

// rawFile lays out a safetensors file by hand: its JSON header, then data.
func rawFile(header map[string]any, data []byte) []byte {
	h, _ := json.Marshal(header)
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, uint64(len(h)))
	b.Write(h)
	b.Write(data)
	return b.Bytes()
}

func saved(t testing.TB, c *Checkpoint) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := encode(&b, c); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestMetadataChecksum: the checksum covers the metadata, so an edited
// setting (issue 15: features=2e6 in a 1 KB file) is reported as
// corruption, not trusted.
func TestMetadataChecksum(t *testing.T) {
	c := New()
	c.Tensors["w"] = Tensor{Shape: []int{2}, Data: []float32{1, 2}}
	c.Meta["positgan.config"] = `{"features":64}`
	good := saved(t, c)
	if _, err := Decode("good", good); err != nil {
		t.Fatal(err)
	}
	bad := bytes.Replace(good, []byte(`\"features\":64`), []byte(`\"features\":2000000`), 1)
	// The header length changes with the edit; fix it so that only the
	// checksum can tell.
	bad = fixHeaderLength(bad, len(bad)-len(good))
	_, err := Decode("bad", bad)
	if !IsCorrupt(err) || !strings.Contains(err.Error(), "metadata") {
		t.Errorf("edited metadata: %v, want a CorruptError about the checksum", err)
	}
}

func fixHeaderLength(b []byte, grew int) []byte {
	n := binary.LittleEndian.Uint64(b)
	binary.LittleEndian.PutUint64(b, n+uint64(grew))
	return b
}

// TestReadsVersion1: files of the first version, whose checksum covers the
// tensors only, still load.
func TestReadsVersion1(t *testing.T) {
	ts := map[string]Tensor{"w": {Shape: []int{2}, Data: []float32{1, -2}}}
	file := rawFile(map[string]any{
		"w":            map[string]any{"dtype": "F32", "shape": []int{2}, "data_offsets": []int{0, 8}},
		"__metadata__": map[string]string{keyVersion: VersionTensorsOnly, keySHA: digest(ts), "step": "3"},
	}, f32Bytes(ts["w"].Data))
	c, err := Decode("v1", file)
	if err != nil {
		t.Fatal(err)
	}
	if c.Meta["step"] != "3" || len(c.Tensors["w"].Data) != 2 {
		t.Errorf("got %v", c)
	}
	file = rawFile(map[string]any{"__metadata__": map[string]string{keyVersion: "positgan-ckpt-9", keySHA: ""}}, nil)
	if _, err := Decode("v9", file); !IsCorrupt(err) || !strings.Contains(err.Error(), "version") {
		t.Errorf("unknown version: %v", err)
	}
}

// TestShapeOverflow: a shape whose product wraps around 2^64 to the data's
// size is rejected, not taken at its word.
func TestShapeOverflow(t *testing.T) {
	for _, shape := range [][]uint64{{1 << 32, 1 << 32}, {1 << 62, 4}, {1 << 40}} {
		file := rawFile(map[string]any{"w": map[string]any{"dtype": "F32", "shape": shape, "data_offsets": []int{0, 0}}}, nil)
		if _, err := DecodeSafetensors("wrap", file, nil); err == nil {
			t.Errorf("shape %v with no data: no error", shape)
		}
	}
}

// TestHostileHeaders: header lengths and offsets that point outside the
// file give errors.
func TestHostileHeaders(t *testing.T) {
	huge := make([]byte, 16)
	binary.LittleEndian.PutUint64(huge, 1<<62)
	for name, file := range map[string][]byte{
		"huge header length": huge,
		"short":              {1, 2, 3},
		"offsets past end":   rawFile(map[string]any{"w": map[string]any{"dtype": "F32", "shape": []int{1 << 20}, "data_offsets": []int{0, 4 << 20}}}, nil),
		"not json":           append([]byte{5, 0, 0, 0, 0, 0, 0, 0}, "{{{{{"...),
	} {
		if _, err := Decode(name, file); !IsCorrupt(err) {
			t.Errorf("%s: %v, want a CorruptError", name, err)
		}
		if _, err := DecodeSafetensors(name, file, nil); err == nil {
			t.Errorf("%s: DecodeSafetensors gave no error", name)
		}
	}
}
