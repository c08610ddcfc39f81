package pyref

import "testing"

func TestPythonMissingModule(t *testing.T) {
	if py := Python("positgan_no_such_module_"); py != "" {
		t.Errorf("Python found %q importing a module that does not exist", py)
	}
}
