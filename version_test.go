package deliverykit

import (
	"runtime/debug"
	"testing"
)

func TestModuleVersion(t *testing.T) {
	dep := func(path, version string, replace *debug.Module) *debug.Module {
		return &debug.Module{Path: path, Version: version, Replace: replace}
	}
	tests := []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"main module, tagged", debug.BuildInfo{Main: debug.Module{Path: ModulePath, Version: "v0.3.0"}}, "v0.3.0"},
		{"main module, a commit of a modified checkout",
			debug.BuildInfo{Main: debug.Module{Path: ModulePath, Version: "v0.0.0-20261126123456-abcdef123456+dirty"}},
			"v0.0.0-20261126123456-abcdef123456+dirty"},
		{"main module, no version control", debug.BuildInfo{Main: debug.Module{Path: ModulePath, Version: "(devel)"}}, "(devel)"},
		{"main module, empty version", debug.BuildInfo{Main: debug.Module{Path: ModulePath}}, DevelVersion},
		{"a dependency", debug.BuildInfo{Main: debug.Module{Path: "example.com/shop", Version: "v9.9.9"},
			Deps: []*debug.Module{dep("golang.org/x/text", "v0.30.0", nil), dep(ModulePath, "v0.2.1", nil)}}, "v0.2.1"},
		{"a dependency replaced by another release",
			debug.BuildInfo{Main: debug.Module{Path: "example.com/shop"},
				Deps: []*debug.Module{dep(ModulePath, "v0.2.1", dep("example.com/fork", "v0.2.2-fork", nil))}}, "v0.2.2-fork"},
		{"a dependency replaced by a directory",
			debug.BuildInfo{Main: debug.Module{Path: "example.com/shop"},
				Deps: []*debug.Module{dep(ModulePath, "v0.2.1", dep("../deliverykit", "", nil))}}, DevelVersion},
		{"not linked at all", debug.BuildInfo{Main: debug.Module{Path: "example.com/shop"}}, DevelVersion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := moduleVersion(&tt.bi); got != tt.want {
				t.Errorf("moduleVersion = %q, want %q", got, tt.want)
			}
		})
	}
}
