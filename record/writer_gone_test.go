package record

import (
	"os"
	"os/exec"
	"testing"
)

func TestWriterGone(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Skip("no host name here")
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("cannot run true:", err)
	}
	for _, c := range []struct {
		name string
		pid  int
		host string
		want bool
	}{
		{"this process", os.Getpid(), host, false},
		{"a process that has exited", dead.Process.Pid, host, true},
		{"another host", dead.Process.Pid, host + ".elsewhere", false},
		{"no pid in the header", 0, host, false},
		{"no host in the header", dead.Process.Pid, "", false},
	} {
		if got := writerGone(c.pid, c.host); got != c.want {
			t.Errorf("%s: writerGone(%d, %q) = %v, want %v", c.name, c.pid, c.host, got, c.want)
		}
	}
}
