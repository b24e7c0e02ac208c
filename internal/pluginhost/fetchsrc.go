package pluginhost

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// Plugins installed from elsewhere than a folder: a git repository
// (cloned at depth 1) or an archive (.tar.gz, .tgz, .zip; a local file or
// an http(s) URL). Fetch brings either into a folder of its own, which is
// then installed as a folder is; the source is recorded in the data
// directory (WriteSourceRecord) so that `hearth plugin upgrade` can fetch
// it again.
// An archive is refused when it is over MaxArchiveBytes, unpacks to more
// than MaxUnpackedBytes or MaxArchiveEntries, or has an entry whose path
// leaves the folder or a link that points out of it; other links are not
// unpacked (a plugin folder is copied without its links).

// Limits of an archive.
const (
	MaxArchiveBytes   = 64 << 20
	MaxUnpackedBytes  = 256 << 20
	MaxArchiveEntries = 20_000
)

// The limits as enforced; tests lower them.
var (
	maxArchiveBytes  int64 = MaxArchiveBytes
	maxUnpackedBytes int64 = MaxUnpackedBytes
)

// ErrArchive means an archive was refused: see its message.
var ErrArchive = errors.New("archive refused")

// archiveKind returns the archive format src's name says, or "".
func archiveKind(src string) string {
	name := strings.ToLower(src)
	if u, ok := strings.CutPrefix(name, "http://"); ok {
		name = u
	} else if u, ok := strings.CutPrefix(name, "https://"); ok {
		name = u
	}
	name, _, _ = strings.Cut(name, "?")
	switch {
	case strings.HasSuffix(name, ".tar.gz") || strings.HasSuffix(name, ".tgz"):
		return "tar.gz"
	case strings.HasSuffix(name, ".zip"):
		return "zip"
	}
	return ""
}

// IsFetched says whether src names something Fetch brings in (a git URL
// or an archive) rather than a plugin folder.
func IsFetched(src string) bool {
	if archiveKind(src) != "" {
		return true
	}
	for _, p := range []string{"https://", "http://", "file://", "ssh://", "git://"} {
		if strings.HasPrefix(src, p) {
			return true
		}
	}
	return strings.HasPrefix(src, "git@") && strings.Contains(src, ":")
}

// Fetch brings src (see IsFetched) into the folder dst, made anew (what
// was there is removed first), and returns the folder that holds the
// plugin (an archive's single top folder is stepped into) and what to
// record. The same src fetched to the same dst gives the same folder, so
// a HomeAgent source folder is rebuilt in place. hc downloads archives
// (nil: a client with timeouts); whatever it is, a redirect that changes
// the scheme is refused. Fetch refuses what IsFetched refuses and a URL
// with a password, and gives up after ten minutes.
func Fetch(ctx context.Context, src, dst string, hc *http.Client) (string, SourceRecord, error) {
	rec := SourceRecord{Source: src, FetchedAt: time.Now().UTC()}
	if err := checkSource(src); err != nil {
		return "", rec, err
	}
	if githubAPIArchive(src) {
		return "", rec, fmt.Errorf("%s is a GitHub archive whose name says no format: give .../archive/refs/heads/BRANCH.tar.gz (or .zip), "+
			"or the repository's git URL", redact(src))
	}
	ctx, cancel := context.WithTimeout(ctx, fetchLimit)
	defer cancel()
	if err := os.RemoveAll(dst); err != nil {
		return "", rec, err
	}
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return "", rec, err
	}
	root := filepath.Join(dst, "src")
	var err error
	switch kind := archiveKind(src); kind {
	case "":
		rec.Kind = "git"
		rec.Commit, err = gitClone(ctx, src, root)
	default:
		rec.Kind = "archive"
		if !strings.HasPrefix(src, "http://") && !strings.HasPrefix(src, "https://") {
			if rec.Source, err = filepath.Abs(src); err != nil {
				break
			}
		}
		err = fetchArchive(ctx, rec.Source, kind, dst, root, hc)
	}
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("%w (fetching takes at most %s)", err, fetchLimit)
	}
	if err != nil {
		os.RemoveAll(dst)
		return "", rec, err
	}
	return pluginRoot(root), rec, nil
}

// FolderID returns the id a plugin folder is installed under: its
// plugin.json's id, or HomeAgent's plg.json name.
func FolderID(dir string) (string, error) {
	id, _, err := folderID(dir)
	return id, err
}

// gitClone clones src at depth 1 into dst, without its .git folder, and
// returns the commit. No prompt is shown for credentials. Only the
// https, http, ssh and git protocols are allowed (file too for a file://
// URL): no remote helper (NAME::ADDRESS) or ext:: command runs.
func gitClone(ctx context.Context, src, dst string) (string, error) {
	if strings.HasPrefix(src, "-") {
		return "", fmt.Errorf("%q is not a git URL", src)
	}
	args := []string{"-c", "protocol.allow=never", "-c", "protocol.https.allow=always", "-c", "protocol.http.allow=always",
		"-c", "protocol.ssh.allow=always", "-c", "protocol.git.allow=always"}
	if strings.HasPrefix(src, "file://") {
		args = append(args, "-c", "protocol.file.allow=always")
	}
	args = append(args, "clone", "--quiet", "--depth", "1", "--no-recurse-submodules", "--", src, dst)
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", fmt.Errorf("installing from a git URL needs git, which is not on PATH: %w", err)
		}
		return "", fmt.Errorf("git clone %s: %w: %s", redact(src), err, strings.TrimSpace(string(out)))
	}
	rev := exec.CommandContext(ctx, "git", "-C", dst, "rev-parse", "HEAD")
	commit, err := rev.Output()
	if err != nil {
		return "", fmt.Errorf("git rev-parse in %s: %w", dst, err)
	}
	return strings.TrimSpace(string(commit)), os.RemoveAll(filepath.Join(dst, ".git"))
}

// fetchArchive downloads (an http(s) URL) or opens the archive src, and
// unpacks it into root.
func fetchArchive(ctx context.Context, src, kind, tmp, root string, hc *http.Client) error {
	file := src
	if strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://") {
		file = filepath.Join(tmp, "archive")
		if err := download(ctx, src, file, hc); err != nil {
			return err
		}
	}
	fi, err := os.Stat(file)
	if err != nil {
		return err
	}
	if fi.Size() > maxArchiveBytes {
		return fmt.Errorf("%w: %s is over %d MiB", ErrArchive, redact(src), MaxArchiveBytes>>20)
	}
	if err := os.Mkdir(root, 0o700); err != nil {
		return err
	}
	if kind == "zip" {
		return unzip(ctx, file, root)
	}
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	return untar(ctx, f, root)
}

// unpacker writes an archive's entries under root, keeping its limits.
type unpacker struct {
	root    string
	entries int
	bytes   int64
}

// target returns where entry name goes, refusing a path that leaves root.
func (u *unpacker) target(name string) (string, error) {
	u.entries++
	if u.entries > MaxArchiveEntries {
		return "", fmt.Errorf("%w: more than %d entries", ErrArchive, MaxArchiveEntries)
	}
	if name == "" || path.IsAbs(name) || strings.Contains(name, `\`) || filepath.VolumeName(name) != "" || outside(name) {
		return "", fmt.Errorf("%w: the entry %q leaves the folder", ErrArchive, name)
	}
	return filepath.Join(u.root, filepath.FromSlash(path.Clean(name))), nil
}

// outside says whether the relative slash path rel leads out of its
// folder.
func outside(rel string) bool {
	c := path.Clean(rel)
	return c == ".." || strings.HasPrefix(c, "../")
}

// link checks a link entry: one pointing out of the folder is refused;
// one inside is not unpacked.
func (u *unpacker) link(name, target string) error {
	if path.IsAbs(target) || strings.Contains(target, `\`) || outside(path.Join(path.Dir(name), target)) {
		return fmt.Errorf("%w: the link %q points out of the folder (to %q)", ErrArchive, name, target)
	}
	return nil
}

// count counts n bytes an entry not unpacked holds against the limit.
func (u *unpacker) count(n int64) error {
	if n > 0 {
		u.bytes += n
	}
	if u.bytes > maxUnpackedBytes {
		return fmt.Errorf("%w: unpacks to more than %d MiB", ErrArchive, MaxUnpackedBytes>>20)
	}
	return nil
}

// file writes one regular file's content, counting it against the limit.
func (u *unpacker) file(dst string, mode os.FileMode, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode.Perm()&0o755|0o600)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrArchive, err)
	}
	n, err := io.Copy(out, io.LimitReader(r, maxUnpackedBytes-u.bytes+1))
	u.bytes += n
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && u.bytes > maxUnpackedBytes {
		err = fmt.Errorf("%w: unpacks to more than %d MiB", ErrArchive, MaxUnpackedBytes>>20)
	}
	return err
}

// untar unpacks the .tar.gz r into root. Every entry's size counts
// against the limit, those not unpacked too: the tar reader inflates
// them all the same.
func untar(ctx context.Context, r io.Reader, root string) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("%w: not a .tar.gz: %w", ErrArchive, err)
	}
	tr := tar.NewReader(gz)
	u := &unpacker{root: root}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %w", ErrArchive, err)
		}
		dst, err := u.target(h.Name)
		if err != nil {
			return err
		}
		if h.Typeflag != tar.TypeReg {
			if err := u.count(h.Size); err != nil {
				return err
			}
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(dst, 0o700); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := u.file(dst, os.FileMode(h.Mode), tr); err != nil {
				return err
			}
		case tar.TypeSymlink, tar.TypeLink:
			if err := u.link(h.Name, h.Linkname); err != nil {
				return err
			}
		default: // devices, fifos, global headers: not unpacked
		}
	}
}

// unzip unpacks the .zip file into root.
func unzip(ctx context.Context, file, root string) error {
	zr, err := zip.OpenReader(file)
	if err != nil {
		return fmt.Errorf("%w: not a .zip: %w", ErrArchive, err)
	}
	defer zr.Close()
	u := &unpacker{root: root}
	for _, f := range zr.File {
		if err := ctx.Err(); err != nil {
			return err
		}
		dst, err := u.target(f.Name)
		if err != nil {
			return err
		}
		mode := f.Mode()
		switch {
		case mode.IsDir():
			if err := os.MkdirAll(dst, 0o700); err != nil {
				return err
			}
		case mode&os.ModeSymlink != 0:
			rc, err := f.Open()
			if err != nil {
				return fmt.Errorf("%w: %w", ErrArchive, err)
			}
			target, err := io.ReadAll(io.LimitReader(rc, 4096))
			rc.Close()
			if err != nil {
				return fmt.Errorf("%w: %w", ErrArchive, err)
			}
			if err := u.link(f.Name, string(target)); err != nil {
				return err
			}
		case mode.IsRegular():
			rc, err := f.Open()
			if err != nil {
				return fmt.Errorf("%w: %w", ErrArchive, err)
			}
			err = u.file(dst, mode, rc)
			rc.Close()
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// pluginRoot is the folder of root that holds the plugin: root, or its
// only entry when that is a folder (as a forge's archive of a repository
// has it) and root itself is not a plugin.
func pluginRoot(root string) string {
	for {
		if _, _, err := folderID(root); err == nil {
			return root
		}
		entries, err := os.ReadDir(root)
		if err != nil || len(entries) != 1 || !entries[0].IsDir() {
			return root
		}
		root = filepath.Join(root, entries[0].Name())
	}
}
