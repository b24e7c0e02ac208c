package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// apiError is the body of every error answer, in the OpenAI shape so
// OpenAI clients show the message: {"error": {"message", "type", "code"}}.
// Fields maps a request field (a setting's key) to what is wrong with it.
type apiError struct {
	Error apiErrorBody `json:"error"`
}

type apiErrorBody struct {
	Message string            `json:"message"`
	Type    string            `json:"type"`
	Code    string            `json:"code"`
	Fields  map[string]string `json:"fields,omitempty"`
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // the client went away; nothing to do
}

// writeError answers with an apiError. code is a stable snake_case
// identifier clients branch on; message is for people.
func writeError(w http.ResponseWriter, status int, code, message string) {
	writeJSON(w, status, apiError{Error: apiErrorBody{Message: message, Type: errorType(status), Code: code}})
}

// writeFieldErrors answers 422 with one message per invalid field.
func writeFieldErrors(w http.ResponseWriter, message string, fields map[string]string) {
	writeJSON(w, http.StatusUnprocessableEntity, apiError{Error: apiErrorBody{
		Message: message, Type: errorType(http.StatusUnprocessableEntity), Code: "invalid_fields", Fields: fields}})
}

func errorType(status int) string {
	switch {
	case status == http.StatusUnauthorized:
		return "authentication_error"
	case status == http.StatusNotFound:
		return "not_found_error"
	case status < 500:
		return "invalid_request_error"
	default:
		return "server_error"
	}
}

// decodeJSON reads a request body into v: one JSON value, no unknown
// fields. On failure it has answered the request (400, or 413 past the
// body limit) and returns false.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("more than one JSON value")
	}
	var tooBig *http.MaxBytesError
	switch {
	case err == nil:
		return true
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, "body_too_large",
			fmt.Sprintf("request body over %d bytes", tooBig.Limit))
	default:
		writeError(w, http.StatusBadRequest, "invalid_json", "invalid request body: "+err.Error())
	}
	return false
}
