package models

import "strings"

// DefaultsNote describes, for help texts, the registered models whose
// training default differs from the common one: value returns a model's
// default as text, or "" where it is the common one. It returns, e.g.,
// " (by default mnist-fashion for cyclegan, sr-photos for esrgan)", or
// "" if no model differs.
func DefaultsNote(value func(TrainDefaults) string) string {
	var parts []string
	for _, n := range Names() {
		if v := value(TrainDefaultsOf(n)); v != "" {
			parts = append(parts, v+" for "+n)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (by default " + strings.Join(parts, ", ") + ")"
}
