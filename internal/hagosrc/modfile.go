package hagosrc

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// goMod is what `go mod edit -json` says of a go.mod.
type goMod struct {
	Go      string
	Require []struct {
		Path    string
		Version string
	}
	Replace []struct {
		Old struct{ Path, Version string }
		New struct{ Path, Version string }
	}
}

// readGoMod reads a go.mod through the toolchain, which owns its syntax.
func (t *toolchain) readGoMod(ctx context.Context, path string) (*goMod, error) {
	out, err := t.run(ctx, filepath.Dir(path), "mod", "edit", "-json", path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w\n%s", path, err, strings.TrimSpace(string(out)))
	}
	var m goMod
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return &m, nil
}

// modfile writes work/build.mod (and build.sum), the plugin's go.mod as
// Hearth builds it: HomeAgent's SDK module (under either of its paths,
// the keys of fwd) replaced by the forwarding module fwd names, Hearth's module by the checkout hearthSrc and required with
// its own requirements (so the versions are the ones Hearth's go.sum
// covers), the plugin's other relative replaces made absolute (the file
// is not in the plugin's folder), and the go line raised to Hearth's.
// build.sum is Hearth's go.sum followed by the plugin's.
func (t *toolchain) modfile(ctx context.Context, src, work string, fwd map[string]string, hearthSrc string) (string, error) {
	user, err := t.readGoMod(ctx, filepath.Join(src, "go.mod"))
	if err != nil {
		return "", err
	}
	hearth, err := t.readGoMod(ctx, filepath.Join(hearthSrc, "go.mod"))
	if err != nil {
		return "", err
	}
	body, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		return "", err
	}
	path := filepath.Join(work, "build.mod")
	if err := os.WriteFile(path, body, 0o644); err != nil {
		return "", err
	}
	args := []string{"mod", "edit",
		"-go=" + newer(user.Go, hearth.Go),
		"-replace=" + hearthModule + "=" + hearthSrc,
		"-require=" + hearthModule + "@v0.0.0-00010101000000-000000000000",
	}
	required := map[string]bool{}
	for _, r := range user.Require {
		required[r.Path] = true
	}
	for mod, dir := range fwd {
		if mod == Module || required[mod] {
			args = append(args, "-replace="+mod+"="+dir, "-require="+mod+"@v0.0.0")
		}
	}
	for _, r := range user.Replace {
		if fwd[r.Old.Path] != "" || r.Old.Path == hearthModule || r.New.Version != "" || filepath.IsAbs(r.New.Path) {
			continue
		}
		old := r.Old.Path
		if r.Old.Version != "" {
			old += "@" + r.Old.Version
		}
		args = append(args, "-replace="+old+"="+filepath.Join(src, r.New.Path))
	}
	for _, r := range hearth.Require {
		if !required[r.Path] {
			args = append(args, "-require="+r.Path+"@"+r.Version)
		}
	}
	if out, err := t.run(ctx, work, append(args, path)...); err != nil {
		return "", fmt.Errorf("writing the build's go.mod: %w\n%s", err, strings.TrimSpace(string(out)))
	}
	var sum []byte
	for _, f := range []string{filepath.Join(hearthSrc, "go.sum"), filepath.Join(src, "go.sum")} {
		b, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			return "", err
		}
		sum = append(sum, b...)
	}
	return path, os.WriteFile(filepath.Join(work, "build.sum"), sum, 0o644)
}

// goLine returns the go version a go.mod names.
func goLine(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) == 2 && fields[0] == "go" {
			return fields[1], nil
		}
	}
	return "", fmt.Errorf("%s names no go version", path)
}
