package kvstore

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Store benchmarks: Get (load) and Set (store) as the store grows, each
// against the file operations it cannot avoid, measured in the same run:
// reading the file (load) and writing a temporary file, fsyncing it and
// renaming it over the store (store).

var storeSizes = []int{10, 100, 256}

func benchStore(b *testing.B, keys int) (*Store, string) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "store.json")
	s := New(path)
	val := strings.Repeat("v", 64)
	for i := 0; i < keys; i++ {
		if err := s.Set(fmt.Sprintf("key-%03d", i), &val); err != nil {
			b.Fatal(err)
		}
	}
	return s, path
}

// BenchmarkStoreLoad: Store.Get of one key.
func BenchmarkStoreLoad(b *testing.B) {
	for _, n := range storeSizes {
		b.Run("keys="+strconv.Itoa(n), func(b *testing.B) {
			s, _ := benchStore(b, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, ok, err := s.Get("key-005"); err != nil || !ok {
					b.Fatalf("get: %v %v", ok, err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}

// BenchmarkStoreLoadRaw: reading the same file, the floor for a load.
func BenchmarkStoreLoadRaw(b *testing.B) {
	for _, n := range storeSizes {
		b.Run("keys="+strconv.Itoa(n), func(b *testing.B) {
			_, path := benchStore(b, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := os.ReadFile(path); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}

// BenchmarkStoreStore: Store.Set of one existing key (locked read, modify,
// atomic write).
func BenchmarkStoreStore(b *testing.B) {
	for _, n := range storeSizes {
		b.Run("keys="+strconv.Itoa(n), func(b *testing.B) {
			s, _ := benchStore(b, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				v := strconv.Itoa(i)
				if err := s.Set("key-005", &v); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}

// BenchmarkStoreStoreRaw: writing the same bytes to a temporary file,
// fsyncing and renaming it, the floor for a durable atomic write.
func BenchmarkStoreStoreRaw(b *testing.B) {
	for _, n := range storeSizes {
		b.Run("keys="+strconv.Itoa(n), func(b *testing.B) {
			_, path := benchStore(b, n)
			data, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				f, err := os.CreateTemp(filepath.Dir(path), "raw")
				if err != nil {
					b.Fatal(err)
				}
				if _, err := f.Write(data); err != nil {
					b.Fatal(err)
				}
				if err := f.Sync(); err != nil {
					b.Fatal(err)
				}
				if err := f.Close(); err != nil {
					b.Fatal(err)
				}
				if err := os.Rename(f.Name(), path); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}
