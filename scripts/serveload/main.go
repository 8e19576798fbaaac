// Command serveload is the load check of normtop serve (scripts/serve-load.sh
// runs it): N SSH sessions at once against a running server, each with a
// terminal of its own size, pressing a key every few seconds (moving
// through the list, opening a run, switching screens, coming back) for a
// fixed time, then quitting. It reports, per session and in all, the bytes
// of screen received and whether the session lasted: a session the server
// ends before the time is up counts as dropped, and the exit status is 1.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:2222", "the server")
	keyPath := flag.String("key", "", "the client's private key (in the server's authorized-keys file)")
	hostKeyPath := flag.String("host-key", "", "the server's private host key, to pin its public half")
	sessions := flag.Int("sessions", 32, "sessions at once")
	duration := flag.Duration("duration", 60*time.Second, "how long each session stays")
	every := flag.Duration("key-every", 2*time.Second, "a key this often in each session")
	flag.Parse()
	if err := run(*addr, *keyPath, *hostKeyPath, *sessions, *duration, *every); err != nil {
		fmt.Fprintln(os.Stderr, "serveload:", err)
		os.Exit(1)
	}
}

func signer(path string) (gossh.Signer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return gossh.ParsePrivateKey(b)
}

// keys is the cycle each session types: down the list, open the run, its
// Events and Summary screens, back to the list.
var keys = []string{"j", "\r", "6", "7", "1", "\x1b"}

type result struct {
	bytes   int64
	lasted  time.Duration
	dropped error
}

func run(addr, keyPath, hostKeyPath string, n int, duration, every time.Duration) error {
	client, err := signer(keyPath)
	if err != nil {
		return fmt.Errorf("-key: %w", err)
	}
	host, err := signer(hostKeyPath)
	if err != nil {
		return fmt.Errorf("-host-key: %w", err)
	}
	cfg := &gossh.ClientConfig{User: "load", Auth: []gossh.AuthMethod{gossh.PublicKeys(client)},
		HostKeyCallback: gossh.FixedHostKey(host.PublicKey()), Timeout: 10 * time.Second}
	results := make([]result, n)
	var wg sync.WaitGroup
	var open atomic.Int64
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = session(cfg, addr, 80+i%5*30, 24+i%4*10, duration, every, &open)
		}()
		time.Sleep(50 * time.Millisecond) // a few a second, as people connect
	}
	wg.Wait()
	var total int64
	dropped := 0
	for i, r := range results {
		total += r.bytes
		state := "lasted"
		if r.dropped != nil {
			dropped++
			state = "DROPPED: " + r.dropped.Error()
		}
		fmt.Printf("session %2d %3d×%-2d %9d bytes in %s, %s\n", i, 80+i%5*30, 24+i%4*10, r.bytes, r.lasted.Round(time.Second), state)
	}
	fmt.Printf("sessions %d, dropped %d, screen bytes %d (%.0f KB/s in all)\n", n, dropped, total, float64(total)/1024/duration.Seconds())
	if dropped > 0 {
		return fmt.Errorf("%d of %d sessions dropped", dropped, n)
	}
	return nil
}

// session holds one dashboard open for duration, typing a key every so
// often, then quits with q.
func session(cfg *gossh.ClientConfig, addr string, w, h int, duration, every time.Duration, open *atomic.Int64) result {
	start := time.Now()
	r := result{}
	c, err := gossh.Dial("tcp", addr, cfg)
	if err != nil {
		r.dropped = err
		return r
	}
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		r.dropped = err
		return r
	}
	defer s.Close()
	if err := s.RequestPty("xterm-256color", h, w, gossh.TerminalModes{}); err != nil {
		r.dropped = err
		return r
	}
	in, _ := s.StdinPipe()
	out, _ := s.StdoutPipe()
	if err := s.Shell(); err != nil {
		r.dropped = err
		return r
	}
	open.Add(1)
	defer open.Add(-1)
	readDone := make(chan error, 1)
	var got atomic.Int64
	go func() {
		buf := make([]byte, 32<<10)
		for {
			k, err := out.Read(buf)
			got.Add(int64(k))
			if err != nil {
				readDone <- err
				return
			}
		}
	}()
	t := time.NewTicker(every)
	defer t.Stop()
	end := time.After(duration)
	for i := 0; ; i++ {
		select {
		case err := <-readDone:
			r.bytes, r.lasted = got.Load(), time.Since(start)
			if errors.Is(err, io.EOF) {
				err = errors.New("the server ended the session")
			}
			r.dropped = err
			return r
		case <-t.C:
			if _, err := in.Write([]byte(keys[i%len(keys)])); err != nil {
				r.bytes, r.lasted, r.dropped = got.Load(), time.Since(start), err
				return r
			}
		case <-end:
			// q leaves an open run for the list, and quits the list.
			in.Write([]byte("q"))
			time.Sleep(300 * time.Millisecond)
			in.Write([]byte("q"))
			select {
			case <-readDone:
			case <-time.After(10 * time.Second):
			}
			r.bytes, r.lasted = got.Load(), time.Since(start)
			return r
		}
	}
}
