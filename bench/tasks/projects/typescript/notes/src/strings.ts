export function capitalize(text: string): string {
  return text[0].toUpperCase() + text.slice(1);
}

export function wordCount(text: string): number {
  return text.split(" ").length;
}
