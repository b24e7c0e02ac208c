package hagosrc

import "testing"

// BuildVar passes what the go command and the C toolchain read, and
// nothing that holds a secret.
func TestBuildVar(t *testing.T) {
	for k, want := range map[string]bool{
		"PATH": true, "HOME": true, "GOCACHE": true, "GOMODCACHE": true, "CGO_CFLAGS": true, "CC": true,
		"PKG_CONFIG_PATH": true, "CPATH": true, "LIBRARY_PATH": true, "NIX_CFLAGS_COMPILE": true, "LC_ALL": true,
		"OPENAI_API_KEY": false, "DEEPSEEK_API_KEY": false, "GOOGLE_API_KEY": false, "HEARTH_TOKEN": false,
		"GOAUTH": false, "NETRC": false, "GITHUB_TOKEN": false, "GIT_ASKPASS": false, "AWS_SECRET_ACCESS_KEY": false,
	} {
		if got := BuildVar(k); got != want {
			t.Errorf("BuildVar(%q) = %v, want %v", k, got, want)
		}
	}
}
