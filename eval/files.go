package eval

import "fmt"

// wrapWrite names the file a failed write was for.
func wrapWrite(path string, err error) error {
	if err != nil {
		return fmt.Errorf("eval: writing %s: %w", path, err)
	}
	return nil
}
