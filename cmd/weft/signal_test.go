package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// weftProcess starts the command line as a child process (TestMain runs
// weft's main in it), with SIGINT ignored at start when ignoreINT is set
// (as a shell starts a background job). Its stderr goes to the returned
// buffer.
func weftProcess(t *testing.T, ignoreINT bool, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var cmd *exec.Cmd
	if ignoreINT {
		cmd = exec.Command("sh", append([]string{"-c", `trap "" INT; exec "$0" "$@"`, exe}, args...)...)
	} else {
		cmd = exec.Command(exe, args...)
	}
	cmd.Env = append(os.Environ(), "WEFT_TEST_MAIN=1")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, &errb
}

// waitFor polls cond every 20 ms until it holds, failing the test after
// limit.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(limit); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("no %s after %v", what, limit)
		}
	}
}

// cpuTime returns the CPU time the process has used (user and system,
// from /proc), or ok false where there is no /proc.
func cpuTime(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The fields after the command name (which may hold spaces) in
	// parentheses: state is 3, utime 14 and stime 15, in clock ticks
	// (USER_HZ, 100 on Linux).
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseUint(f[11], 10, 64)
	s, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(u+s) * 10 * time.Millisecond, true
}

// stopWithin signals the process and waits for it to exit, failing the
// test (and killing it) when it takes longer than limit. It returns the
// exit status and how long the process took to stop.
func stopWithin(t *testing.T, cmd *exec.Cmd, sig syscall.Signal, limit time.Duration) (int, time.Duration) {
	t.Helper()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	start := time.Now()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("still running %v after %v", limit, sig)
	}
	return cmd.ProcessState.ExitCode(), time.Since(start)
}

// The first SIGINT stops a single run that would go on for days (an
// endless loop under sim.max_cycles = 10^15, all inside one core's run of
// local instructions) within seconds, with exit status 130 and a message
// saying how far it got; SIGTERM gives 143.
func TestRunSignalStopsLongRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	for _, c := range []struct {
		name   string
		src    string
		sig    syscall.Signal
		ignore bool
		status int
	}{
		{"SIGINT", ".text\nmain: add r1, r1, 1\n jmp main\n", syscall.SIGINT, false, 130},
		{"SIGINT ignored at start", ".text\nmain: add r1, r1, 1\n jmp main\n", syscall.SIGINT, true, 130},
		{"SIGTERM, two threads on the bus", ".text\nmain: spawn r2, pong, r0\nping: fadd r1, x, 1\n jmp ping\npong: fadd r1, x, 2\n jmp pong\n.data\nx: .word 0\n",
			syscall.SIGTERM, false, 143},
	} {
		t.Run(c.name, func(t *testing.T) {
			prog := writeFile(t, "loop.s", c.src)
			args := []string{"run", "-p", prog, "--set", "sim.max_cycles=1000000000000000", "--set", "machine.cores=2"}
			want := `^weft: run: interrupted at cycle [1-9]\d* of seed 1, before the run ended: it has no result\n$`
			var partial string
			if c.sig == syscall.SIGTERM {
				// With --out: the run is not in runs.partial.jsonl.
				dir := t.TempDir()
				partial = filepath.Join(dir, "runs.partial.jsonl")
				args = append(args, "--out", dir)
				want = strings.TrimSuffix(want, `\n$`) + regexp.QuoteMeta(" ("+partial+" is empty)") + `\n$`
			}
			cmd, stderr := weftProcess(t, c.ignore, args...)
			// Signal it once it is simulating: 300 ms of CPU time is far
			// more than it needs to start (or half a second, without /proc).
			if _, ok := cpuTime(cmd.Process.Pid); ok {
				waitFor(t, time.Minute, "300 ms of CPU time", func() bool { d, _ := cpuTime(cmd.Process.Pid); return d >= 300*time.Millisecond })
			} else {
				time.Sleep(500 * time.Millisecond)
			}
			status, took := stopWithin(t, cmd, c.sig, 10*time.Second)
			if status != c.status {
				t.Fatalf("exit status %d, want %d; stderr %s", status, c.status, stderr)
			}
			if !regexp.MustCompile(want).MatchString(stderr.String()) {
				t.Errorf("stderr %q, want %s", stderr, want)
			}
			if partial != "" {
				if b, err := os.ReadFile(partial); err != nil || len(b) != 0 {
					t.Errorf("%s: %q, %v; want it empty", partial, b, err)
				}
			}
			t.Logf("stopped %v after the signal", took)
		})
	}
}

// longSweep's first point is two quick runs; its second point's runs
// would take hours (sim.max_cycles = 10^15 and 10^8 operations per
// thread).
const longSweep = `runs = 2
set = ["sim.max_cycles=1000000000000000"]

[[workload]]
name = "counter-race"

[[workload]]
name = "lu"
params = { ops_per_thread = 100000000, threads = 2 }
`

// shortSweep is many quick runs.
const shortSweep = `runs = 100000

[[workload]]
name = "counter-race"
`

// An interrupted sweep exits 130 on SIGINT (also when started with SIGINT
// ignored, as a background job) and 143 on SIGTERM, so a batch system can
// tell it from a failed one; it stops promptly, between quick runs or in
// the middle of a long run, and keeps the runs it wrote for the same
// command to resume.
func TestSweepSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	long := writeFile(t, "long.toml", longSweep)
	short := writeFile(t, "short.toml", shortSweep)
	for _, c := range []struct {
		name   string
		file   string
		sig    syscall.Signal
		ignore bool
		status int
	}{
		{"SIGINT in a long run", long, syscall.SIGINT, false, 130},
		{"SIGINT ignored at start", long, syscall.SIGINT, true, 130},
		{"SIGTERM in a long run", long, syscall.SIGTERM, false, 143},
		{"SIGINT between quick runs", short, syscall.SIGINT, false, 130},
		{"SIGTERM between quick runs", short, syscall.SIGTERM, false, 143},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			runs := filepath.Join(dir, "runs.jsonl")
			cmd, stderr := weftProcess(t, c.ignore, "sweep", c.file, "--out", dir, "--workers", "1", "--quiet")
			lines := func() int { b, _ := os.ReadFile(runs); return bytes.Count(b, []byte("\n")) }
			waitFor(t, time.Minute, "two lines in runs.jsonl", func() bool { return lines() >= 2 })
			if c.file == long {
				time.Sleep(200 * time.Millisecond) // into the long runs
			}
			before, _ := os.ReadFile(runs)
			status, took := stopWithin(t, cmd, c.sig, 10*time.Second)
			if status != c.status {
				t.Fatalf("exit status %d, want %d; stderr %s", status, c.status, stderr)
			}
			if want := "weft: sweep interrupted (context canceled): the finished runs are in " + runs + "; run the same command again to resume\n"; stderr.String() != want {
				t.Errorf("stderr %q\nwant   %q", stderr, want)
			}
			after, err := os.ReadFile(runs)
			if err != nil || !bytes.HasPrefix(after, before) || !bytes.HasSuffix(after, []byte("\n")) {
				t.Errorf("runs.jsonl lost runs or holds a half line after the interrupt (%v)", err)
			}
			if c.file == long && !bytes.Equal(after, before) {
				t.Errorf("runs.jsonl gained a line of a run stopped part way:\n%s", after)
			}
			t.Logf("stopped %v after the signal", took)
		})
	}
}
