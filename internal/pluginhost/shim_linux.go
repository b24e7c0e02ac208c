//go:build linux

package pluginhost

import "github.com/hearth-agent/hearth/internal/pluginhost/shim"

// procStat is what /proc/<pid>/stat says of one process.
type procStat struct {
	pid, ppid, sid int
	state          byte
}

// children lists the processes whose parent is ppid.
func children(ppid int) []procStat {
	ps := shim.Children(ppid)
	out := make([]procStat, len(ps))
	for i, p := range ps {
		out[i] = procStat{pid: p.Pid, ppid: p.PPid, sid: p.Sid, state: p.State}
	}
	return out
}
