// Package pyref finds the Python that tests compare with: PIL, numpy and
// PyTorch are the independent references of the image reading, resizing
// and .npz code, but they are optional peers, so each such test asks
// Python first and skips when it is missing.
package pyref

import "os/exec"

// Python returns a Python that imports modules (a comma-separated import
// list, "PIL, numpy"): python3 on the PATH, or Debian's /usr/bin/python3
// (where apt installs python3-MODULE) when the PATH's is another, such as
// a virtual environment's; "" if neither does.
func Python(modules string) string {
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(py, "-c", "import "+modules).Run() == nil {
			return py
		}
	}
	return ""
}
