// A ws echo server: 20 connections per minute per IP at the upgrade, and 100 messages per
// second per IP (burst 100) on every socket, slowed by backpressure rather than dropped.
import { createServer, type Server } from 'node:http';
import { Limit, limitMessages, limitUpgrades } from '@sluice/ws';
import { WebSocketServer } from 'ws';

export function wsServer(onLimit: 'close' | 'pause' | 'drop' = 'pause'): Server {
  const server = createServer();
  const upgrades = limitUpgrades(Limit.perMinute(20).named('connections'));
  const wss = new WebSocketServer({ server, verifyClient: upgrades.verifyClient });
  wss.on('connection', (ws, req) => {
    limitMessages(ws, Limit.perSecond(100).named('messages'), { request: req, onLimit });
    ws.on('message', (data) => ws.send(data));
  });
  server.on('close', () => wss.close());
  return server;
}
