//go:build linux

package shim

import (
	"os"
	"strconv"
)

// Proc is what /proc/<pid>/stat says of one process.
type Proc struct {
	Pid, PPid, Sid int
	State          byte // R, S, D, Z, T...
}

// Children lists the processes whose parent is ppid.
func Children(ppid int) []Proc {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	var out []Proc
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		if p, ok := ReadProc(pid); ok && p.PPid == ppid {
			out = append(out, p)
		}
	}
	return out
}

// ReadProc reads /proc/<pid>/stat; ok is false if the process is gone or
// the file cannot be parsed.
func ReadProc(pid int) (p Proc, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Proc{}, false
	}
	p, ok = parseStat(b)
	p.Pid = pid
	return p, ok
}

// parseStat parses "pid (comm) state ppid pgrp session ...", where comm
// may hold spaces and parentheses: the fields start after the last ')'.
// It leaves Pid zero.
func parseStat(b []byte) (Proc, bool) {
	i := len(b) - 1
	for i >= 0 && b[i] != ')' {
		i--
	}
	if i < 0 || i+2 >= len(b) {
		return Proc{}, false
	}
	f := fields(b[i+2:], 4)
	if len(f) < 4 || len(f[0]) != 1 {
		return Proc{}, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	_, err2 := strconv.Atoi(string(f[2])) // the process group
	sid, err3 := strconv.Atoi(string(f[3]))
	if err1 != nil || err2 != nil || err3 != nil {
		return Proc{}, false
	}
	return Proc{PPid: ppid, Sid: sid, State: f[0][0]}, true
}

// fields returns up to n fields of b separated by runs of spaces, tabs
// or newlines (bytes.Fields would import unicode, see the package doc).
func fields(b []byte, n int) [][]byte {
	var out [][]byte
	start := -1
	for i := 0; i <= len(b) && len(out) < n; i++ {
		if i == len(b) || b[i] == ' ' || b[i] == '\t' || b[i] == '\n' {
			if start >= 0 {
				out = append(out, b[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	return out
}
