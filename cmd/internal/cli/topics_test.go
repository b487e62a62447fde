package cli

import (
	"os"
	"strings"
	"testing"
)

// The README's environment table and exit codes say what the help topics
// say: every variable and code a topic names is in the README too.
func TestTopicsMatchTheREADME(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, topic := range helpTopics {
		if topic.Name == "files" {
			continue // the README's Files section draws the tree
		}
		for _, r := range topic.Rows {
			for _, name := range strings.Split(r.Name, ", ") {
				if strings.HasPrefix(name, "fledge ") {
					continue
				}
				if !strings.Contains(string(readme), "`"+name) {
					t.Errorf("help %s names %s; the README does not", topic.Name, name)
				}
			}
		}
	}
}
