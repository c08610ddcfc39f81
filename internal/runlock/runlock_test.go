package runlock

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestAcquireRelease(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, FileName)); strings.TrimSpace(string(b)) != strconv.Itoa(os.Getpid()) {
		t.Errorf("lock file holds %q, want our pid", b)
	}
	if runtime.GOOS != "windows" && runtime.GOOS != "plan9" {
		_, err = Acquire(dir)
		if !IsBusy(err) || !strings.Contains(err.Error(), "process "+strconv.Itoa(os.Getpid())) {
			t.Errorf("second Acquire: %v, want a BusyError naming our pid", err)
		}
		if Owner(dir) != os.Getpid() {
			t.Errorf("Owner = %d, want %d", Owner(dir), os.Getpid())
		}
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); !os.IsNotExist(err) {
		t.Errorf("lock file left after Release: %v", err)
	}
	if Owner(dir) != 0 {
		t.Errorf("Owner after Release = %d", Owner(dir))
	}
	l, err = Acquire(dir)
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	l.Release()
}

// TestStaleLock: a lock file whose process is gone does not block.
func TestStaleLock(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, FileName), []byte("999999999\n"), 0o644)
	if Owner(dir) != 0 {
		t.Errorf("Owner of a stale lock = %d, want 0", Owner(dir))
	}
	l, err := Acquire(dir)
	if err != nil {
		t.Fatalf("stale lock: %v", err)
	}
	l.Release()
}

// TestKilledOwner: a process killed with SIGKILL while holding the lock
// leaves its lock file, and the next Acquire takes it over.
func TestKilledOwner(t *testing.T) {
	if dir := os.Getenv("RUNLOCK_TEST_HOLD"); dir != "" {
		if _, err := Acquire(dir); err != nil {
			os.Stdout.WriteString("error " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("locked\n")
		select {} // hold until killed
	}
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no flock")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestKilledOwner$")
	cmd.Env = append(os.Environ(), "RUNLOCK_TEST_HOLD="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "locked\n" {
		cmd.Process.Kill()
		t.Fatalf("helper said %q", line)
	}
	_, err = Acquire(dir)
	if !IsBusy(err) || !strings.Contains(err.Error(), strconv.Itoa(cmd.Process.Pid)) {
		t.Errorf("while the helper lives: %v, want a BusyError naming pid %d", err, cmd.Process.Pid)
	}
	cmd.Process.Kill() // SIGKILL
	cmd.Wait()
	if _, err := os.Stat(filepath.Join(dir, FileName)); err != nil {
		t.Errorf("lock file gone after kill -9: %v", err)
	}
	l, err := Acquire(dir)
	if err != nil {
		t.Fatalf("after the owner was killed: %v", err)
	}
	l.Release()
}
