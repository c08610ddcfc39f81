package quant

import "fmt"

// Lattice is the containment order among a list of formats, as its Hasse
// diagram: the covering pairs (A < B with no listed format strictly
// between) and each format's level. Formats with equal value sets share a
// level and have no edge between them.
type Lattice struct {
	Formats []Format
	// Level[i] is the length of the longest chain of strictly smaller
	// listed formats below Formats[i]: 0 for the minimal ones.
	Level []int
	// Edges are the covering pairs, as indices into Formats, lower first,
	// in the order of the lower format, then of the upper.
	Edges [][2]int
}

// NewLattice returns the Hasse diagram of fs under containment (see
// Contains).
func NewLattice(fs []Format) (*Lattice, error) {
	n := len(fs)
	less := make([][]bool, n) // less[i][j]: fs[i] < fs[j]
	leq := make([][]bool, n)
	for i := range fs {
		leq[i] = make([]bool, n)
		for j := range fs {
			ok, err := Contains(fs[j], fs[i])
			if err != nil {
				return nil, fmt.Errorf("quant: lattice: %w", err)
			}
			leq[i][j] = ok
		}
	}
	for i := range fs {
		less[i] = make([]bool, n)
		for j := range fs {
			less[i][j] = leq[i][j] && !leq[j][i]
		}
	}
	l := &Lattice{Formats: fs, Level: make([]int, n)}
	for i := range fs {
		for j := range fs {
			if !less[i][j] {
				continue
			}
			covers := true
			for k := range fs {
				if less[i][k] && less[k][j] {
					covers = false
					break
				}
			}
			if covers {
				l.Edges = append(l.Edges, [2]int{i, j})
			}
		}
	}
	// Levels by relaxation: a strict order has no cycle, so n rounds do.
	for range n {
		changed := false
		for _, e := range l.Edges {
			if l.Level[e[1]] < l.Level[e[0]]+1 {
				l.Level[e[1]] = l.Level[e[0]] + 1
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	return l, nil
}

// CSV returns the covering pairs as rows lower,upper under that header.
func (l *Lattice) CSV() [][]string {
	rows := [][]string{{"lower", "upper"}}
	for _, e := range l.Edges {
		rows = append(rows, []string{l.Formats[e[0]].String(), l.Formats[e[1]].String()})
	}
	return rows
}
