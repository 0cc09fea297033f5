/** @type {import('next').NextConfig} */
const nextConfig = { typescript: { ignoreBuildErrors: false } };
export default nextConfig;
