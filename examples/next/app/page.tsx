export default function Home() {
  return <p>sluice on Next.js: GET /api/hello is limited to 5 per minute per client.</p>;
}
