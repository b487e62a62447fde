// Command sdkbench is the benchmarks' pluginsdk plugin, built both natively
// and for GOOS=wasip1 so that the wasm sandbox is measured against the same
// code run as a process. "exit" writes one output; "flood N SIZE" writes N
// output messages of SIZE bytes.
package main

import (
	"strconv"
	"strings"

	"github.com/corvidlabs/fledge-go/pluginsdk"
	"github.com/corvidlabs/fledge-go/protocol"
)

func main() {
	pluginsdk.Main(func(p *pluginsdk.IO, init *protocol.Init) error {
		if len(init.Args) == 3 && init.Args[0] == "flood" {
			n, _ := strconv.Atoi(init.Args[1])
			size, _ := strconv.Atoi(init.Args[2])
			text := strings.Repeat("x", max(size-1, 0)) + "\n"
			for i := 0; i < n; i++ {
				if err := p.Output(text); err != nil {
					return err
				}
			}
			return nil
		}
		return p.Output("ok\n")
	})
}
