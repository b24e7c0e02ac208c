package server

// providerRoutes: model sources and onboarding. Not written yet: it answers no route.
func (s *Server) providerRoutes() []route { return nil }
