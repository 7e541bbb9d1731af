// The server's answers, read for the page: a failed one becomes an Error
// whose message says why, whatever its body.

const LONGEST = 300; // characters of a plain-text answer shown

// The Error of a failed response: the server's own {"error": "..."}, or
// for any other body (a proxy's page, a plain-text 500) its status and text.
export async function failure(response) {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text);
    if (body && typeof body.error === 'string') return new Error(body.error);
  } catch {
    // Not JSON: said as it is, below.
  }
  const status = `${response.status} ${response.statusText}`.trim();
  let words = text.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
  if (words.length > LONGEST) words = words.slice(0, LONGEST) + '…';
  return new Error(words ? `${status}: ${words}` : status);
}

// The JSON of a response, or its failure thrown.
export async function answerJson(response) {
  if (!response.ok) throw await failure(response);
  return response.json();
}
