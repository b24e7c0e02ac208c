package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// How long a fetch may take. A download's client has its own dial, TLS
// and response-header timeouts; a download that receives nothing for
// fetchIdle is given up (ErrStalled); a whole fetch, download or git
// clone, is given up after fetchLimit. Tests lower them.
var (
	fetchIdle  = time.Minute
	fetchLimit = 10 * time.Minute
)

// maxRedirects is the most redirects a download follows.
const maxRedirects = 5

// ErrStalled means a download received nothing for a while.
var ErrStalled = errors.New("the server sent nothing for too long")

// fetchClient is hc (nil: a client of its own, with timeouts) with the
// redirect rule of checkRedirect.
func fetchClient(hc *http.Client) *http.Client {
	if hc == nil {
		hc = &http.Client{Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   15 * time.Second,
			ResponseHeaderTimeout: 30 * time.Second,
			ForceAttemptHTTP2:     true,
		}}
	}
	c := *hc
	c.CheckRedirect = checkRedirect
	return &c
}

// checkRedirect follows at most maxRedirects redirects, none of them
// changing the scheme (https to http would bring the plugin's code over
// an unauthenticated channel) or carrying a password.
func checkRedirect(req *http.Request, via []*http.Request) error {
	from := via[len(via)-1].URL
	switch {
	case len(via) > maxRedirects:
		return fmt.Errorf("more than %d redirects", maxRedirects)
	case req.URL.Scheme != "http" && req.URL.Scheme != "https":
		return fmt.Errorf("a redirect to %s, which is not http(s)", redact(req.URL.String()))
	case req.URL.Scheme != from.Scheme:
		return fmt.Errorf("a redirect from %s to %s changes the scheme: give the address it redirects to, over https", redact(from.String()), redact(req.URL.String()))
	case hasPassword(req.URL):
		return fmt.Errorf("a redirect to an address with a password")
	}
	return nil
}

// hasPassword says whether u carries a password.
func hasPassword(u *url.URL) bool {
	if u.User == nil {
		return false
	}
	_, ok := u.User.Password()
	return ok
}

// redact is src with any password in it masked.
func redact(src string) string {
	if u, err := url.Parse(src); err == nil && hasPassword(u) {
		return u.Redacted()
	}
	return src
}

// Redact is src as Hearth shows and records it: a URL's password masked.
func Redact(src string) string { return redact(src) }

// checkSource refuses what Fetch does not fetch: what IsFetched refuses
// (such as git's NAME::ADDRESS, which runs git-remote-NAME), an option,
// and a URL with a password in it.
func checkSource(src string) error {
	if strings.HasPrefix(src, "-") || !IsFetched(src) {
		return fmt.Errorf("%q is not a git URL (https://, http://, ssh://, git://, file://, git@HOST:PATH) or an archive (.tar.gz, .tgz, .zip)", redact(src))
	}
	if u, err := url.Parse(src); err == nil && hasPassword(u) {
		return fmt.Errorf("%s has a password in it, which would be shown and recorded: leave it out and let git's credential helper supply it "+
			"(git config --global credential.helper store)", redact(src))
	}
	return nil
}

// githubAPIArchive says whether src is a GitHub /tarball or /zipball
// address, an archive whose name says no format.
func githubAPIArchive(src string) bool {
	u, err := url.Parse(src)
	if err != nil || (u.Host != "github.com" && u.Host != "api.github.com") {
		return false
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	for _, p := range parts {
		if p == "tarball" || p == "zipball" {
			return true
		}
	}
	return false
}

// download saves url to file, refusing more than MaxArchiveBytes.
func download(ctx context.Context, src, file string, hc *http.Client) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := time.AfterFunc(fetchIdle, func() { cancel(ErrStalled) })
	defer idle.Stop()
	shown := redact(src)
	fail := func(err error) error {
		if cause := context.Cause(ctx); errors.Is(cause, ErrStalled) {
			err = fmt.Errorf("%w (%s)", ErrStalled, fetchIdle)
		}
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // its URL is shown redacted instead
		}
		return fmt.Errorf("downloading %s: %w", shown, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src, nil)
	if err != nil {
		return fail(err)
	}
	resp, err := fetchClient(hc).Do(req)
	if err != nil {
		return fail(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("downloading %s: %s", shown, resp.Status)
	}
	out, err := os.OpenFile(file, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	n, err := io.Copy(out, &idleReader{r: io.LimitReader(resp.Body, maxArchiveBytes+1), t: idle})
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		return fail(err)
	case n > maxArchiveBytes:
		return fmt.Errorf("%w: %s is over %d MiB", ErrArchive, shown, MaxArchiveBytes>>20)
	}
	return nil
}

// idleReader restarts the idle timer t at every read that returns data.
type idleReader struct {
	r io.Reader
	t *time.Timer
}

func (i *idleReader) Read(p []byte) (int, error) {
	n, err := i.r.Read(p)
	if n > 0 {
		i.t.Reset(fetchIdle)
	}
	return n, err
}
