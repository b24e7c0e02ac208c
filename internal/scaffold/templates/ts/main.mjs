// Hearth runs this file (plugin.json's command): it serves the plugin on
// stdin and stdout.
import { serve } from '@hearth-agent/plugin-sdk';
import plugin from './plugin.mjs';

serve(plugin);
