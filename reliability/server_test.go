package reliability

import (
	"bufio"
	"context"
	"flag"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Flags of the long variants; see doc.go.
var (
	flagKills = flag.Int("reliability.kills", envInt("DELIVERYKIT_RELIABILITY_KILLS", 3), "how many times the crash test kills the server (env DELIVERYKIT_RELIABILITY_KILLS)")
	flagSeed  = flag.Int64("reliability.seed", 1, "seed of the crash test's kill points and write mix")
)

func envInt(name string, def int) int {
	var n int
	if _, err := fmtSscan(os.Getenv(name), &n); err != nil || n <= 0 {
		return def
	}
	return n
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	buildOut  []byte
)

// serverBinary builds the example server once per test binary run.
func serverBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the example server binary; skipped with -short")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "deliverykit-reliability-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "server")
		buildOut, buildErr = exec.Command("go", "build", "-o", binPath, "github.com/deliverykit/deliverykit/examples/server").CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("go build: %v\n%s", buildErr, buildOut)
	}
	return binPath
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// proc is one run of the example server.
type proc struct {
	cmd    *exec.Cmd
	addr   string
	base   string
	log    *syncBuffer
	done   chan struct{}
	client *http.Client
}

var listening = regexp.MustCompile(`msg="deliverykit listening" addr=(\S+)`)

// startServer runs the server on the bolt file db and waits until it
// listens.
func startServer(t *testing.T, db string, extra ...string) *proc {
	t.Helper()
	bin := serverBinary(t)
	args := append([]string{"-addr", "127.0.0.1:0", "-metrics-addr", "off", "-db", db}, extra...)
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, log: &syncBuffer{}, done: make(chan struct{}),
		client: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			p.log.Write([]byte(line + "\n"))
			if m := listening.FindStringSubmatch(line); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	go func() { cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			cmd.Process.Kill()
			<-p.done
		}
	})
	select {
	case p.addr = <-found:
	case <-p.done:
		t.Fatalf("server exited before listening: %v\n%s", cmd.ProcessState, p.log.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("server did not report its address:\n%s", p.log.String())
	}
	p.base = "http://" + p.addr
	return p
}

// kill SIGKILLs the server and waits for it to be gone.
func (p *proc) kill(t *testing.T) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
	p.client.CloseIdleConnections()
}

// call sends one request; err is a transport error (no answer).
func (p *proc) call(ctx context.Context, method, path string, header map[string]string, body string) (resp, error) {
	req, err := http.NewRequestWithContext(ctx, method, p.base+path, strings.NewReader(body))
	if err != nil {
		return resp{}, err
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := p.client.Do(req)
	if err != nil {
		return resp{}, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return resp{}, err
	}
	r := resp{status: res.StatusCode, header: res.Header, raw: raw}
	r.body = decodeObject(raw)
	return r, nil
}
