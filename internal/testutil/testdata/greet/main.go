// Command greet is BuildGo's test program.
package main

import (
	"fmt"
	"os"
)

func main() { fmt.Println("hello from", len(os.Args)-1, "args") }
