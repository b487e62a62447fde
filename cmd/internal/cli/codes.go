package cli

// classify maps the library packages' typed errors and sentinels to error
// codes; hintFor adds the advice a human needs. Both grow with the commands.
func classify(err error) string { return "" }

func hintFor(err error) string { return "" }
