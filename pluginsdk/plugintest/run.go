package plugintest

import (
	"errors"
	"fmt"
	"os/exec"

	"github.com/corvidlabs/fledge-go/pluginsdk"
	"github.com/corvidlabs/fledge-go/protocol"
)

// Run runs a plugin's logic in-process against a Host: it sends init,
// serves the plugin's messages with answer until run returns, then ends the
// plugin's stdin. It returns the transcript and run's error (or RecvInit's).
func Run(init protocol.Init, answer Answer, run func(*pluginsdk.IO, *protocol.Init) error) ([]Message, error) {
	p, h, closePlugin := Pipe()
	done := make(chan error, 1)
	go func() {
		defer closePlugin()
		in, err := p.RecvInit()
		if err != nil {
			done <- err
			return
		}
		done <- run(p, in)
	}()
	sendErr := h.SendInit(init)
	msgs, serveErr := h.Serve(answer)
	h.Close()
	runErr := <-done
	if sendErr != nil || serveErr != nil {
		return msgs, fmt.Errorf("fake host: %w", errors.Join(sendErr, serveErr))
	}
	return msgs, runErr
}

// Start starts cmd with its stdin and stdout connected to a new Host. Its
// stderr is left as the caller set it. Call Close after Serve to end the
// plugin's stdin, then cmd.Wait.
func Start(cmd *exec.Cmd) (*Host, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return NewHost(stdin, stdout), nil
}
