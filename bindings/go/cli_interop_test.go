package abloom

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The abloom command (cli/) and Go exchange files: a filter the command builds from lines or
// from --u64 ids opens in Go and answers as the command does, and a filter Go saves passes the
// command's verify and query. The command is $ABLOOM_C_PREFIX/bin/abloom (ci.sh installs the
// C library and the command there); without ABLOOM_C_PREFIX the tests are skipped, saying so, as
// the other interop tests are; with it, a missing command fails them.
func cliCommand(t *testing.T) string {
	t.Helper()
	prefix := os.Getenv("ABLOOM_C_PREFIX")
	if prefix == "" {
		t.Skip("no abloom command for the CLI interop tests: set ABLOOM_C_PREFIX to an install of it")
	}
	bin := filepath.Join(prefix, "bin", "abloom")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("ABLOOM_C_PREFIX=%s has no bin/abloom: %v", prefix, err)
	}
	return bin
}

// runCLI runs the command with stdin, returning its standard output; exit status 1 (query's
// "no line matched") is returned as ok=false, any other failure fails the test.
func runCLI(t *testing.T, bin string, stdin string, args ...string) (out string, ok bool) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if exit, isExit := err.(*exec.ExitError); isExit && exit.ExitCode() == 1 {
		return stdout.String(), false
	}
	if err != nil {
		t.Fatalf("abloom %v: %v\n%s", args, err, stderr.String())
	}
	return stdout.String(), true
}

func cliLines(prefix string, n int) []string {
	ks := make([]string, n)
	for i := range ks {
		ks[i] = prefix + strconv.Itoa(i)
	}
	return ks
}

func TestCLIBuiltFileOpensInGo(t *testing.T) {
	bin := cliCommand(t)
	keys := cliLines("cli-key-", 5000)
	absent := cliLines("cli-absent-", 20000)
	path := filepath.Join(testDir(t), "cli.abloom")
	runCLI(t, bin, strings.Join(keys, "\n")+"\n",
		"build", "-q", "-o", path, "--capacity", "5000", "--fpr", "0.01", "--seed", "42")
	f, err := Open(path, VerifyChecksum)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if info := f.Info(); info.Capacity != 5000 || info.Seed != 42 {
		t.Fatalf("info %+v", info)
	}
	for _, k := range keys {
		if !f.TestString(k) {
			t.Fatalf("key %q built by the command is missing in Go", k)
		}
	}
	// The same keys added in Go give the same filter, bit for bit.
	g := mustNew(t, 5000, 0.01, WithSeed(42))
	if _, err := g.AddBatchStrings(keys); err != nil {
		t.Fatal(err)
	}
	if !f.Equal(g) {
		t.Fatal("the command's filter differs from Go's of the same keys")
	}
	// Keys never added: Go answers "maybe" for exactly the ones the command prints.
	printed, _ := runCLI(t, bin, strings.Join(absent, "\n")+"\n", "query", path)
	var goYes []string
	for _, k := range absent {
		if f.TestString(k) {
			goYes = append(goYes, k)
		}
	}
	want := strings.Join(goYes, "\n")
	if len(goYes) > 0 {
		want += "\n"
	}
	if printed != want {
		t.Fatalf("query printed %d bytes of false positives, Go found %d keys", len(printed), len(goYes))
	}
	if len(goYes) == 0 || len(goYes) > 400 { // 20000 keys at fpr 0.01: about 200
		t.Fatalf("%d false positives of 20000 at fpr 0.01", len(goYes))
	}
}

func TestCLIU64FileOpensInGo(t *testing.T) {
	bin := cliCommand(t)
	ids := []uint64{0, 1, 255, 256, 1 << 32, 1<<63 - 1, 1 << 63, 1<<64 - 1}
	for i := uint64(0); i < 1000; i++ {
		ids = append(ids, i*0x9E3779B97F4A7C15)
	}
	var in strings.Builder
	for _, id := range ids {
		in.WriteString(strconv.FormatUint(id, 10) + "\n")
	}
	path := filepath.Join(testDir(t), "ids.abloom")
	runCLI(t, bin, in.String(), "build", "-q", "--u64", "-o", path, "--capacity", "1008")
	f, err := Open(path, VerifyChecksum)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g := mustNew(t, 1008, 0.01)
	key := make([]byte, 8)
	for _, id := range ids {
		binary.LittleEndian.PutUint64(key, id) // --u64: the id's 8 little-endian bytes
		if !f.Test(key) {
			t.Fatalf("id %d built by the command is missing in Go", id)
		}
		if err := g.Add(key); err != nil {
			t.Fatal(err)
		}
	}
	if !f.Equal(g) {
		t.Fatal("the command's --u64 filter differs from Go's of the same ids")
	}
}

func TestGoSavedFileQueriedByCLI(t *testing.T) {
	bin := cliCommand(t)
	keys := cliLines("go-key-", 5000)
	f := mustNew(t, 5000, 0.01, WithShards(4))
	if _, err := f.AddBatchStrings(keys); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(testDir(t), "go.abloom")
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	runCLI(t, bin, "", "verify", path)
	stdin := strings.Join(keys, "\n") + "\n"
	if out, _ := runCLI(t, bin, stdin, "query", "--count", path); strings.TrimSpace(out) != "5000" {
		t.Fatalf("query --count of Go's keys printed %q, not 5000", out)
	}
	if out, ok := runCLI(t, bin, stdin, "query", "--absent", path); ok || out != "" {
		t.Fatalf("query --absent printed %q (matched: %v): every key Go added must be present", out, ok)
	}
}

// Growing files cross between the command and Go: the command builds one from standard input
// without --capacity, Go opens it and answers as the command does; a growing filter Go saves
// passes the command's verify and query.
func TestCLIGrowingFiles(t *testing.T) {
	bin := cliCommand(t)
	keys := cliLines("cli-grow-", 5000)
	absent := cliLines("cli-absent-", 20000)
	dir := testDir(t)
	path := filepath.Join(dir, "cli-growing.abloom")
	runCLI(t, bin, strings.Join(keys, "\n")+"\n", "build", "-q", "-o", path, "--fpr", "0.01", "--seed", "42")
	f, err := Open(path, VerifyChecksum)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if info := f.Info(); info.Stages < 2 || info.Growth <= 1 || info.Seed != 42 || info.TargetFPR != 0.01 {
		t.Fatalf("the command's filter of standard input is not a growing one: %+v", info)
	}
	for _, k := range keys {
		if !f.TestString(k) {
			t.Fatalf("key %q built by the command is missing in Go", k)
		}
	}
	printed, _ := runCLI(t, bin, strings.Join(absent, "\n")+"\n", "query", path)
	var goYes []string
	for _, k := range absent {
		if f.TestString(k) {
			goYes = append(goYes, k)
		}
	}
	want := strings.Join(goYes, "\n")
	if len(goYes) > 0 {
		want += "\n"
	}
	if printed != want {
		t.Fatalf("query printed %d bytes of false positives, Go found %d keys", len(printed), len(goYes))
	}
	if _, hi := binomialBounds(len(absent), f.Info().ExpectedFPR); float64(len(goYes)) > hi {
		t.Fatalf("%d false positives of %d, above the bound %g", len(goYes), len(absent), f.Info().ExpectedFPR)
	}

	g := mustGrowing(t, 0.01, WithInitialCapacity(500), WithSeed(7))
	goKeys := cliLines("go-grow-", 5000)
	if _, err := g.AddBatchStrings(goKeys); err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(dir, "go-growing.abloom")
	if err := g.Save(saved); err != nil {
		t.Fatal(err)
	}
	runCLI(t, bin, "", "verify", saved)
	stdin := strings.Join(goKeys, "\n") + "\n"
	if out, _ := runCLI(t, bin, stdin, "query", "--count", saved); strings.TrimSpace(out) != "5000" {
		t.Fatalf("query --count of Go's keys printed %q, not 5000", out)
	}
	if out, ok := runCLI(t, bin, stdin, "query", "--absent", saved); ok || out != "" {
		t.Fatalf("query --absent printed %q (matched: %v): every key Go added must be present", out, ok)
	}
}
