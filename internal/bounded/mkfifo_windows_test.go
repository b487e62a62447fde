package bounded

func mkfifo(string) error { return nil }
