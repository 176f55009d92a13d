export interface Note {
  id: number;
  title: string;
  body: string;
  tags: string[];
}

export class NoteStore {
  private notes: Note[] = [];
  private nextId = 1;

  add(title: string, body: string, tags: string[] = []): Note {
    const note = { id: this.nextId++, title, body, tags };
    this.notes.push(note);
    return note;
  }

  get(id: number): Note | undefined {
    return this.notes.find((n) => n.id === id);
  }

  search(query: string): Note[] {
    return this.notes.filter((n) => n.title.includes(query) || n.body.includes(query));
  }

  count(): number {
    return this.notes.length;
  }
}
