package pluginhost

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Where a fetched plugin came from is recorded outside its folder, in
// the data directory's sources folder (SourceDir), one file per plugin
// folder: a plugin folder's own files never choose where its upgrades
// come from. Installing a folder removes the record of its id (a folder
// is upgraded by installing it again); a record an older Hearth kept in
// the plugin folder (LegacySourceFile) is moved out the first time it is
// read.

// SourceDir is the folder, beside the plugins folder in the data
// directory, that holds the source records.
const SourceDir = "sources"

// LegacySourceFile is where a Hearth of before kept the record, in the
// installed plugin folder. A folder being installed never brings one.
const LegacySourceFile = ".hearth-source.json"

// SourceRecord records where a plugin folder was fetched from.
type SourceRecord struct {
	// Source is what was installed: a git URL or an archive's URL or
	// absolute path, without a password.
	Source string `json:"source"`
	// Kind is "git" or "archive".
	Kind string `json:"kind"`
	// Commit is the commit a git source was at.
	Commit    string    `json:"commit,omitempty"`
	FetchedAt time.Time `json:"fetched_at"`
}

// SourceRecordFile is the record of the plugin folder pluginsDir/id.
func SourceRecordFile(pluginsDir, id string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(pluginsDir)), SourceDir, id+".json")
}

// WriteSourceRecord records where the plugin folder pluginsDir/id was
// fetched from.
func WriteSourceRecord(pluginsDir, id string, rec SourceRecord) error {
	rec.Source = redact(rec.Source)
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	file := SourceRecordFile(pluginsDir, id)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return err
	}
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

// ReadSourceRecord reads what WriteSourceRecord wrote for pluginsDir/id,
// fs.ErrNotExist when there is none. A record kept in the folder by an
// older Hearth is moved to its place first.
func ReadSourceRecord(pluginsDir, id string) (SourceRecord, error) {
	file := SourceRecordFile(pluginsDir, id)
	rec, err := readSourceRecord(file)
	if !errors.Is(err, fs.ErrNotExist) {
		return rec, err
	}
	legacy := filepath.Join(pluginsDir, id, LegacySourceFile)
	if rec, err = readSourceRecord(legacy); err != nil {
		return rec, err
	}
	if err := WriteSourceRecord(pluginsDir, id, rec); err != nil {
		return rec, err
	}
	return rec, os.Remove(legacy)
}

// RemoveSourceRecord forgets where pluginsDir/id came from.
func RemoveSourceRecord(pluginsDir, id string) error {
	err := os.Remove(SourceRecordFile(pluginsDir, id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

func readSourceRecord(file string) (SourceRecord, error) {
	var rec SourceRecord
	b, err := os.ReadFile(file)
	if err != nil {
		return rec, err
	}
	if err := json.Unmarshal(b, &rec); err != nil || rec.Source == "" || (rec.Kind != "git" && rec.Kind != "archive") {
		return SourceRecord{}, fmt.Errorf("%s: not a source record", file)
	}
	return rec, nil
}
