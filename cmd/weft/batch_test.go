package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestMain runs weft's main instead of the tests when WEFT_TEST_MAIN is
// set, so a test can run the command line as a child process (to send it
// signals) without building it.
func TestMain(m *testing.M) {
	if os.Getenv("WEFT_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// spawnRace spawns a second thread after a random delay: on two cores it
// finds a free core only when the first thread has already exited, so some
// seeds pass and the others crash at the second spawn (pc 2).
const spawnRace = `.cores 2
.text
main:
  spawn r2, child, r0
  delay 0, 40
  spawn r3, child, r0
  join r2
  join r3
  exit
child:
  delay 0, 40
  exit
`

// tinyProgram is the cheapest program there is, for batches of many runs.
const tinyProgram = "main: exit\n"

// weftCtx runs the command line in-process with ctx, writing stdout to out.
func weftCtx(ctx context.Context, out *bytes.Buffer, args ...string) (stdout, stderr string, code int) {
	var errb bytes.Buffer
	code = runContext(ctx, args, out, &errb)
	return out.String(), errb.String(), code
}

// jsonSeeds decodes JSON lines and returns their seeds and outcomes.
func jsonSeeds(t *testing.T, text string) (seeds []uint64, outcomes []runRecord) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r runRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %d: %v: %s", len(seeds)+1, err, sc.Text())
		}
		seeds = append(seeds, r.Seed)
		outcomes = append(outcomes, r)
	}
	return seeds, outcomes
}

// A seed whose spawn finds no free core is that run's crash: the batch
// gives every run, exits 0, and the summary names machine.cores.
func TestRunSpawnFailureSeedIsOneRunsCrash(t *testing.T) {
	prog := writeFile(t, "race.s", spawnRace)
	const n = 40
	stdout, stderr := mustWeft(t, "run", "-p", prog, "--set", "machine.cores=2", "--runs", fmt.Sprint(n), "--json")
	seeds, recs := jsonSeeds(t, stdout)
	if len(seeds) != n {
		t.Fatalf("%d JSON lines, want %d; stderr %s", len(seeds), n, stderr)
	}
	crashes := 0
	for i, r := range recs {
		if r.Seed != uint64(1+i) {
			t.Errorf("line %d has seed %d", i, r.Seed)
		}
		if r.Outcome == "crash" {
			crashes++
		}
	}
	if crashes == 0 || crashes == n {
		t.Fatalf("%d of %d runs crashed: want some", crashes, n)
	}
	if !strings.Contains(stdout, `"outcome_msg":"spawn found no free core: all 2 cores (machine.cores) are running threads; raise machine.cores"`) ||
		!strings.Contains(stdout, `"outcome_pc":2,"outcome_thread":0`) {
		t.Errorf("no crash naming machine.cores at the spawn:\n%s", stdout)
	}
	sum, _ := mustWeft(t, "run", "-p", prog, "--set", "machine.cores=2", "--runs", fmt.Sprint(n))
	if !regexp.MustCompile(`crash\s+\d+\s+[\d.]+%\s+first at seed \d+: crash: spawn found no free core: .*machine.cores.* \(thread 0 at pc 2, line 6: spawn r3, child, r0\)`).MatchString(sum) {
		t.Errorf("summary does not show the crash:\n%s", sum)
	}
}

// cancelWriter is stdout that records when each write came and cancels a
// context once it has seen cancelAt lines.
type cancelWriter struct {
	mu       sync.Mutex
	buf      bytes.Buffer
	lines    int
	cancelAt int
	cancel   func()
	first    time.Time
}

func (w *cancelWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.first.IsZero() {
		w.first = time.Now()
	}
	w.lines += bytes.Count(p, []byte("\n"))
	if w.lines >= w.cancelAt && w.cancel != nil {
		w.cancel()
	}
	return w.buf.Write(p)
}

// runCancel runs the command line with a context that a cancelWriter
// cancels once cancelAt lines are written.
func runCancel(t *testing.T, cancelAt int, args ...string) (w *cancelWriter, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w = &cancelWriter{cancelAt: cancelAt, cancel: cancel}
	var errb bytes.Buffer
	code = runContext(ctx, args, w, &errb)
	return w, errb.String(), code
}

// The first JSON line is written as soon as run 0 finishes, long before
// the batch ends: cancelling the context at the first line stops a batch
// of 10^7 runs after a few of them.
func TestRunStreamsFirstLine(t *testing.T) {
	prog := writeFile(t, "tiny.s", tinyProgram)
	start := time.Now()
	w, stderr, code := runCancel(t, 1, "run", "-p", prog, "--runs", "10000000", "--json")
	end := time.Now()
	if code != 130 {
		t.Fatalf("exit %d, want 130; stderr %s", code, stderr)
	}
	seeds, _ := jsonSeeds(t, w.buf.String())
	if len(seeds) == 0 || len(seeds) > 1000 {
		t.Fatalf("%d lines written before the batch stopped", len(seeds))
	}
	if want := fmt.Sprintf("weft: run: interrupted after %d of 10000000 runs (seeds 1..%d, printed)\n", len(seeds), len(seeds)); stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
	t.Logf("first line after %v, command returned after %v, %d lines", w.first.Sub(start), end.Sub(start), len(seeds))
}

// An interrupted batch keeps its finished runs: the JSON lines printed,
// runs.partial.jsonl in --out (never a runs.jsonl, not even an earlier
// batch's), the summary of those runs, and exit status 130.
func TestRunInterruptKeepsFinishedRuns(t *testing.T) {
	prog := writeFile(t, "race.s", spawnRace)
	dir := t.TempDir()
	base := []string{"run", "-p", prog, "--set", "machine.cores=2", "--out", dir}
	mustWeft(t, append(base, "--runs", "3")...) // an earlier, complete batch
	if _, err := os.Stat(filepath.Join(dir, "runs.jsonl")); err != nil {
		t.Fatal(err)
	}

	w, stderr, code := runCancel(t, 50, append(base, "--runs", "1000000", "--json")...)
	if code != 130 {
		t.Fatalf("exit %d, want 130; stderr %s", code, stderr)
	}
	seeds, _ := jsonSeeds(t, w.buf.String())
	k := len(seeds)
	if k < 50 || k > 1000 {
		t.Fatalf("%d runs kept, want 50 and a few more", k)
	}
	for i, s := range seeds {
		if s != uint64(1+i) {
			t.Fatalf("line %d has seed %d: runs not in order", i, s)
		}
	}
	partial := filepath.Join(dir, "runs.partial.jsonl")
	if want := fmt.Sprintf("weft: run: interrupted after %d of 1000000 runs (seeds 1..%d, printed and in %s)\n", k, k, partial); stderr != want {
		t.Errorf("stderr %q\nwant    %q", stderr, want)
	}
	if got, err := os.ReadFile(partial); err != nil || string(got) != w.buf.String() {
		t.Errorf("%s differs from the printed lines (%v)", partial, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "runs.jsonl")); !os.IsNotExist(err) {
		t.Errorf("runs.jsonl left beside an interrupted batch: %v", err)
	}
	if cfg, _ := os.ReadFile(filepath.Join(dir, "config.toml")); !strings.Contains(string(cfg), "runs.partial.jsonl") {
		t.Errorf("config.toml does not name runs.partial.jsonl:\n%s", cfg)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}

	// The readable summary covers the finished runs and says so. It is
	// printed at the end, so a timer stops this batch.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	var out bytes.Buffer
	sum, stderr, code := weftCtx(ctx, &out, "run", "-p", prog, "--set", "machine.cores=2", "--runs", "100000000", "--workers", "1")
	if code != 130 || !strings.Contains(stderr, "summarised)") {
		t.Fatalf("exit %d; stderr %s", code, stderr)
	}
	if !regexp.MustCompile(`(?m)^workload  race   (\d+) runs? \(seeds 1\.\.\d+\)   2 cores.*\n          interrupted: the first \d+ of 100000000 runs\n`).MatchString(sum) ||
		!strings.Contains(sum, "\noutcomes\n") || !strings.Contains(sum, "\nhost: ") {
		t.Errorf("summary of an interrupted batch:\n%s", sum)
	}

	// A later batch into the same directory is refused: it would delete
	// the interrupted batch's runs, which stay as they were.
	before, _ := os.ReadFile(partial)
	_, stderr, code = weft(t, append(base, "--runs", "2")...)
	if code != 1 || !strings.Contains(stderr, "holds "+partial) || !strings.Contains(stderr, "move it away or delete it") {
		t.Errorf("a batch into a directory with a partial batch: exit %d, %s", code, stderr)
	}
	if after, err := os.ReadFile(partial); err != nil || !bytes.Equal(before, after) {
		t.Errorf("the refused batch changed %s (%v)", partial, err)
	}
	// Once it is moved away, a complete batch writes runs.jsonl.
	if err := os.Rename(partial, partial+".kept"); err != nil {
		t.Fatal(err)
	}
	mustWeft(t, append(base, "--runs", "2")...)
	if _, err := os.Stat(filepath.Join(dir, "runs.jsonl")); err != nil {
		t.Errorf("no runs.jsonl after the partial batch was moved away: %v", err)
	}
}

// heapWriter is stdout that samples the heap every 1000 lines: its
// size, and what is live after a collection.
type heapWriter struct {
	lines      int
	peak, live uint64
}

func (w *heapWriter) Write(p []byte) (int, error) {
	w.lines++
	if w.lines%1000 == 0 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		w.peak = max(w.peak, ms.HeapAlloc)
		runtime.GC()
		runtime.ReadMemStats(&ms)
		w.live = max(w.live, ms.HeapAlloc)
	}
	return len(p), nil
}

// A batch's memory does not grow with its number of runs: the most heap
// live during 20,000 runs (with --json and --out) is within 2 MB of that
// during 2,000 runs (both include the stream's fixed 32 MB reserve,
// sim.heapFloor). Holding the results, as weft run once did, costs about
// 3 KB a run of this program: 54 MB more for the larger batch. The peak
// heap before collection, which also holds garbage and depends on when
// the collector runs, is logged.
func TestRunMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("22,000 runs")
	}
	prog := writeFile(t, "tiny.s", tinyProgram)
	measure := func(n int) (peak, live uint64) {
		runtime.GC()
		w := &heapWriter{}
		var errb bytes.Buffer
		if code := runContext(context.Background(), []string{"run", "-p", prog, "--set", "machine.cores=1",
			"--runs", fmt.Sprint(n), "--json", "--out", t.TempDir()}, w, &errb); code != 0 || w.lines != n {
			t.Fatalf("%d runs: exit %d, %d lines; %s", n, code, w.lines, errb.String())
		}
		return w.peak, w.live
	}
	mb := func(b uint64) float64 { return float64(b) / (1 << 20) }
	smallPeak, small := measure(2000)
	largePeak, large := measure(20000)
	t.Logf("live heap at most %.2f MiB over 2,000 runs, %.2f MiB over 20,000 (peak before collection %.1f and %.1f MiB)",
		mb(small), mb(large), mb(smallPeak), mb(largePeak))
	if large > small+2<<20 {
		t.Errorf("live heap grew from %.2f MiB (2,000 runs) to %.2f MiB (20,000 runs)", mb(small), mb(large))
	}
}

// Counts no host could finish are refused before anything runs.
func TestAbsurdCountsRejected(t *testing.T) {
	prog := writeFile(t, "tiny.s", tinyProgram)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-p", prog, "--runs", "100000000000"}, "run: --runs 100000000000 is more than 100000000, the most one batch may have"},
		{[]string{"reproduce", "default", "--seeds", "100000000000", "--out", t.TempDir()}, "reproduce: --seeds 100000000000 is more than 1000"},
	} {
		stdout, stderr, code := weft(t, c.args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("weft %s: exit %d, stdout %q, stderr %q; want 2 and %q", strings.Join(c.args, " "), code, stdout, stderr, c.want)
		}
	}
}

// Signals stop a batch in a real process: SIGINT (even when the process
// started with SIGINT ignored, as a shell's background job does) and
// SIGTERM keep the finished runs and exit 130 and 143.
func TestRunSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	prog := writeFile(t, "tiny.s", tinyProgram)
	for _, c := range []struct {
		name   string
		sig    syscall.Signal
		ignore bool
		status int
	}{
		{"SIGINT", syscall.SIGINT, false, 130},
		{"SIGINT ignored at start", syscall.SIGINT, true, 130},
		{"SIGTERM", syscall.SIGTERM, false, 143},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{exe, "run", "-p", prog, "--runs", "10000000", "--json", "--out", dir}
			var cmd *exec.Cmd
			if c.ignore {
				cmd = exec.Command("sh", append([]string{"-c", `trap "" INT; exec "$0" "$@"`}, args...)...)
			} else {
				cmd = exec.Command(args[0], args[1:]...)
			}
			cmd.Env = append(os.Environ(), "WEFT_TEST_MAIN=1")
			var errb bytes.Buffer
			cmd.Stderr = &errb
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			var got bytes.Buffer
			r := bufio.NewReader(out)
			for n := 0; n < 100; n++ { // wait for 100 runs
				line, err := r.ReadBytes('\n')
				if err != nil {
					t.Fatalf("after %d lines: %v; stderr %s", n, err, errb.String())
				}
				got.Write(line)
			}
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			if _, err := got.ReadFrom(r); err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			if cmd.ProcessState.ExitCode() != c.status {
				t.Fatalf("exit %v, want status %d; stderr %s", err, c.status, errb.String())
			}
			seeds, _ := jsonSeeds(t, got.String())
			k := len(seeds)
			if want := fmt.Sprintf("weft: run: interrupted after %d of 10000000 runs", k); !strings.HasPrefix(errb.String(), want) {
				t.Errorf("stderr %q, want %q…", errb.String(), want)
			}
			if part, err := os.ReadFile(filepath.Join(dir, "runs.partial.jsonl")); err != nil || !bytes.Equal(part, got.Bytes()) {
				t.Errorf("runs.partial.jsonl (%d bytes, %v) differs from the %d printed lines", len(part), err, k)
			}
		})
	}
}
