/** One lint finding at a JSON pointer of a settings file, with the line and column it points at. */
import type { Diagnostic, DiagnosticCode } from "../diagnostic.ts";
import type { SettingsFile } from "../settings/settings_file.ts";

export function finding(
  settings: SettingsFile,
  pointer: string,
  code: DiagnosticCode,
  message: string,
  severity: Diagnostic["severity"] = "warning",
): Diagnostic {
  return { code, severity, file: settings.path, pointer, ...settings.positionOf(pointer), message };
}
