package server

// settingsRoutes: settings and preferences. Not written yet: it answers no route.
func (s *Server) settingsRoutes() []route { return nil }
