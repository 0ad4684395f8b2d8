package bolt_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
)

// TestProbe: Probe finds the store healthy on its own file, and
// unavailable, naming what happened, once the file at its path was removed
// or replaced (the store would go on writing to a file nobody opens
// again); a closed store is ErrClosed.
func TestProbe(t *testing.T) {
	tests := []struct {
		name     string
		change   func(t *testing.T, path string)
		wantKind deliverykit.Kind
		wantText string // "" for no error
	}{
		{"healthy", func(*testing.T, string) {}, 0, ""},
		{"removed", func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}, deliverykit.KindUnavailable, "was removed while the store has it open"},
		{"replaced", func(t *testing.T, path string) {
			other := path + ".new"
			if err := os.WriteFile(other, []byte("not a database"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(other, path); err != nil {
				t.Fatal(err)
			}
		}, deliverykit.KindUnavailable, "was replaced by another file"},
		{"renamed away and back", func(t *testing.T, path string) {
			if err := os.Rename(path, path+".tmp"); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(path+".tmp", path); err != nil {
				t.Fatal(err)
			}
		}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "dk.db")
			s := open(t, path, testOptions)
			defer s.Close()
			tt.change(t, path)
			err := s.Probe(t.Context())
			if tt.wantText == "" {
				if err != nil {
					t.Fatalf("Probe = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantText) || deliverykit.KindOf(err) != tt.wantKind {
				t.Errorf("Probe = %v (kind %v), want %v containing %q", err, deliverykit.KindOf(err), tt.wantKind, tt.wantText)
			}
		})
	}
	t.Run("closed", func(t *testing.T) {
		s := open(t, filepath.Join(t.TempDir(), "dk.db"), testOptions)
		s.Close()
		if err := s.Probe(t.Context()); !errors.Is(err, storage.ErrClosed) {
			t.Errorf("Probe after Close = %v, want ErrClosed", err)
		}
	})
}
