//go:build !unix

package pluginhost

import (
	"os/exec"
	"syscall"
)

// pluginCommand runs the plugin as a plain child: there are no process
// groups here, so only the plugin itself can be stopped.
func pluginCommand(path, argv0 string, args []string) *exec.Cmd {
	cmd := exec.Command(path, args...)
	cmd.Args[0] = argv0
	return cmd
}

func startCommand(cmd *exec.Cmd) error { return cmd.Start() }
func waitCommand(cmd *exec.Cmd) error  { return cmd.Wait() }

// signalPlugin can only kill the plugin itself here.
func signalPlugin(cmd *exec.Cmd, _ syscall.Signal) { killGroup(cmd) }

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
