export function formatDate(d: Date): string {
  const month = d.getUTCMonth() + 1;
  const day = d.getUTCDate();
  return `${d.getUTCFullYear()}-${month < 10 ? "0" + month : month}-${day < 10 ? "0" + day : day}`;
}

// "1h30m" -> 90, "45m" -> 45, "2h" -> 120
export function parseDuration(text: string): number {
  const match = /^(?:(\d+)h)?(?:(\d+)m)?$/.exec(text.trim());
  if (!match) {
    throw new Error(`bad duration: ${text}`);
  }
  return Number(match[1] ?? 0) * 60;
}
