package server

// cliRoutes: commands run for a client. Not written yet: it answers no route.
func (s *Server) cliRoutes() []route { return nil }
