package gan

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// goldenTensors returns the parameters and Adam moments of tr by name.
func goldenTensors(tr *Trainer) map[string][]float32 {
	m := map[string][]float32{}
	for _, p := range tr.Model().Params() {
		m[p.Name] = p.Data()
	}
	for i, p := range tr.Model().D.Params() {
		m["adam.m/"+p.Name], m["adam.v/"+p.Name] = tr.adamD.M[i], tr.adamD.V[i]
	}
	for i, p := range tr.Model().G.Params() {
		m["adam.m/"+p.Name], m["adam.v/"+p.Name] = tr.adamG.M[i], tr.adamG.V[i]
	}
	return m
}

func readGolden(t *testing.T) map[string]string {
	f, err := os.Open("testdata/golden.txt")
	if err != nil {
		return map[string]string{}
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), " "); ok && !strings.HasPrefix(k, "#") {
			m[k] = v
		}
	}
	return m
}
